import type { Locale } from '../../locales.ts'
import type { Business, Copy } from './draft.ts'
import { WORDS, type BusinessType } from './words.ts'

/**
 * The first draft's copy from a language model (DESIGN.md 15): with AGENT_LLM_URL set, an
 * OpenAI-compatible chat completions endpoint writes the home page's heading and introduction,
 * the about text and the FAQ from the business's facts, as JSON. What it answers is used only
 * when it has the expected shape and lengths (those of the blocks it fills) and states no fact it
 * was not given: no amount of money, no number, e-mail address or web address absent from the
 * facts. Anything else (an error, a timeout, broken JSON) gives undefined, and the template's own
 * words are used.
 */

export interface CopyWriterOptions {
  url: string
  apiKey?: string | undefined
  model: string
  timeoutMs?: number
}

export type CopyWriter = (
  type: BusinessType,
  business: Business,
  name: string,
  locales: readonly Locale[],
) => Promise<Partial<Record<Locale, Copy>> | undefined>

export const COPY_TIMEOUT_MS = 8000
const LANGUAGES: Record<Locale, string> = { de: 'German', en: 'English', fr: 'French' }

function endpointOf(url: string): string {
  const trimmed = url.replace(/\/+$/, '')
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`
}

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim().length > 0 && value.length <= max

/** The copy of one language when it has the shape and lengths of the blocks it fills. */
function copyOf(value: unknown): Copy | undefined {
  if (!value || typeof value !== 'object') return undefined
  const v = value as Record<string, unknown>
  if (!isText(v['tagline'], 120) || !isText(v['intro'], 500) || !isText(v['about'], 4000) || !Array.isArray(v['faq'])) return undefined
  const faq = (v['faq'] as unknown[]).slice(0, 6).map((item) => {
    const q = (item ?? {}) as Record<string, unknown>
    return isText(q['question'], 300) && isText(q['answer'], 1000) ? { question: q['question'], answer: q['answer'] } : undefined
  })
  if (faq.length === 0 || faq.some((q) => q === undefined)) return undefined
  return { tagline: v['tagline'], intro: v['intro'], about: v['about'], faq: faq as Copy['faq'] }
}

const MONEY = /[€$£¥]|\b(?:eur|euros?|usd|chf|gbp|dollars?)\b/i
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/g
const WEB = /\bhttps?:\/\/|\bwww\./i

/**
 * The facts the copy states that the owner did not give: any amount of money, any number (of
 * years, a price, a phone number, a house number) or e-mail address not in the facts, any web
 * address. Empty when the copy invents nothing the check can see.
 */
export function inventedFacts(copy: Copy, facts: string): string[] {
  const all = [copy.tagline, copy.intro, copy.about, ...copy.faq.flatMap((q) => [q.question, q.answer])].join('\n')
  const found: string[] = []
  if (MONEY.test(all)) found.push('an amount of money')
  const digits = new Set(facts.match(/\d+/g) ?? [])
  for (const number of all.match(/\d+/g) ?? []) if (!digits.has(number)) found.push(`the number ${number}`)
  for (const email of all.match(EMAIL) ?? []) if (!facts.includes(email)) found.push(`the address ${email}`)
  if (WEB.test(all)) found.push('a web address')
  return found
}

/** A copy writer over the endpoint; `onFailure` hears why a draft fell back to the template's words. */
export function llmCopyWriter(options: CopyWriterOptions, onFailure: (error: unknown) => void = () => {}): CopyWriter {
  const endpoint = endpointOf(options.url)
  return async (type, business, name, locales) => {
    const facts = JSON.stringify({ ...business, name })
    const example = WORDS[type].en
    const system = [
      'You write the first draft of a small business website.',
      `Write in each of these languages: ${locales.map((l) => `${l} (${LANGUAGES[l]})`).join(', ')}.`,
      'Answer with one JSON object only: for each language code an object {"tagline", "intro", "about", "faq": [{"question", "answer"}]}.',
      'tagline: the home page heading, at most 80 characters. intro: one or two sentences. about: two short paragraphs in Markdown. faq: two or three questions a customer would ask, each answer telling the owner what to write there.',
      'Use only the facts given. Never state a price, an amount, a number, an address, a date or a qualification that is not in the facts.',
      `The kind of business: ${example.name}.`,
    ].join('\n')
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify({
          model: options.model,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: `Facts: ${facts}` },
          ],
          temperature: 0.4,
          max_tokens: 1500,
          response_format: { type: 'json_object' },
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? COPY_TIMEOUT_MS),
      })
      if (!response.ok) throw new Error(`chat completions answered ${response.status}`)
      const body = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> }
      const content = body.choices?.[0]?.message?.content
      if (typeof content !== 'string') throw new Error('chat completions answered without content')
      const parsed = JSON.parse(content.replace(/^```(?:json)?\s*|\s*```$/g, '')) as Record<string, unknown>
      const copy: Partial<Record<Locale, Copy>> = {}
      for (const locale of locales) {
        const one = copyOf(parsed[locale])
        if (!one) throw new Error(`the copy in ${locale} is not in the expected form`)
        const invented = inventedFacts(one, facts)
        if (invented.length) throw new Error(`the copy in ${locale} states facts it was not given: ${invented.join(', ')}`)
        copy[locale] = one
      }
      return copy
    } catch (error) {
      onFailure(error)
      return undefined
    }
  }
}

/** The copy writer the service's configuration asks for: the model at AGENT_LLM_URL, or none (the template's words). */
export function copyWriterOf(
  config: { AGENT_LLM_URL?: string | undefined; AGENT_LLM_API_KEY?: string | undefined; AGENT_LLM_MODEL: string },
  onFailure?: (error: unknown) => void,
): CopyWriter | undefined {
  if (!config.AGENT_LLM_URL) return undefined
  return llmCopyWriter({ url: config.AGENT_LLM_URL, apiKey: config.AGENT_LLM_API_KEY, model: config.AGENT_LLM_MODEL }, onFailure)
}
