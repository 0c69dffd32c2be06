import type { Logger } from 'pino'
import type { KnowledgeBase } from '../knowledge.ts'
import { planTurn } from './builtin.ts'
import { typeset } from '../text.ts'
import { clip, type Responder, type TurnInput, type TurnPlan } from './types.ts'

export interface LlmOptions {
  url: string
  apiKey: string | undefined
  model: string
  timeoutMs?: number
  log: Logger
}

export const LLM_TIMEOUT_MS = 8000

const languageNames = { de: 'German', en: 'English', fr: 'French' } as const

/** AGENT_LLM_URL may name the endpoint itself or the API base it lives under. */
export function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '')
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`
}

// Amounts of money in a text: "49 €", "€49", "9,90 EUR", "19.00 euros", "1 470,40 €" (any space, also no-break).
const AMOUNT = String.raw`\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`
const MONEY = new RegExp(String.raw`(?:€|\beur(?:o|os)?\b)\s*(${AMOUNT})|(${AMOUNT})\s*(?:€|eur(?:o|os)?\b)`, 'giu')

/** The value of an amount as written: the last "." or "," before one or two digits is the decimal sign, other signs group thousands. */
function amountValue(written: string): number {
  const decimal = /[.,](\d{1,2})$/.exec(written)
  const whole = (decimal ? written.slice(0, decimal.index) : written).replace(/[^\d]/g, '')
  return Number(`${whole}.${decimal?.[1] ?? '0'}`)
}

/** Every amount of money a text quotes, in euro. */
export function quotedAmounts(text: string): number[] {
  return [...text.matchAll(MONEY)].map((m) => amountValue(m[1] ?? m[2] ?? ''))
}

/** True when every amount of money in the text is one of the allowed ones. */
export function quotesOnlyKnownPrices(text: string, known: ReadonlySet<number>): boolean {
  return quotedAmounts(text).every((amount) => known.has(amount))
}

interface Completion {
  choices?: Array<{ message?: { content?: unknown } }>
  usage?: { total_tokens?: unknown }
}

/** What the model may say: the built-in answer (made from the price list or the best passage) and the passages it rests on. */
function grounding(plan: TurnPlan): string {
  const passages = plan.passages.map((p, i) => `[${i + 1}] ${p.title} (${p.url})\n${p.text}`)
  return [`Answer to rephrase:\n${plan.reply}`, ...passages].join('\n\n')
}

/**
 * An OpenAI-compatible chat completions endpoint phrases the answer from the passages the built-in
 * ranking found, under the same rule: when retrieval is not confident the built-in refusal is sent
 * and the model is not asked. Actions, suggestions and sources stay the built-in ones. Any failure
 * (timeout, error status, malformed answer, an amount its facts do not quote) falls back to the
 * built-in answer.
 */
export function llmResponder(kb: KnowledgeBase, options: LlmOptions): Responder {
  const endpoint = completionsUrl(options.url)
  const timeoutMs = options.timeoutMs ?? LLM_TIMEOUT_MS

  return {
    name: 'llm',
    immediate: false,
    async respond(input: TurnInput): Promise<TurnPlan> {
      const plan = planTurn(kb, input)
      // Refusals, handoff notices and greetings are fixed: the model is asked only when retrieval is confident.
      if (plan.fixed) return plan
      try {
        const { text, tokens } = await complete(input, plan)
        // The model may quote only amounts its facts quote, and those come from the price list.
        const allowed = new Set(quotedAmounts(grounding(plan)).filter((a) => kb.knownAmounts.has(a)))
        if (!quotesOnlyKnownPrices(text, allowed)) throw new Error('the model quoted a price that is not in its facts')
        return { ...plan, reply: clip(typeset(text, input.locale)), usage: { tokens } }
      } catch (error) {
        options.log.warn({ err: error, responder: 'llm' }, 'language model failed; answering with the built-in responder')
        return plan
      }
    },
  }

  async function complete(input: TurnInput, plan: TurnPlan): Promise<{ text: string; tokens: number }> {
    const history = (await input.history()).slice(-6).map((m) => ({ role: m.role === 'visitor' ? 'user' : 'assistant', content: m.text }))
    const system = [
      `You are ${input.persona ?? 'the sales assistant'} on the website of ${input.siteName}.`,
      `Answer in ${languageNames[input.locale]}, friendly and direct: the first sentence answers the question, then at most one short supporting detail. Stay under 400 characters.`,
      'Use only the facts below. Quote prices exactly as they appear there and never state any other amount.',
      'If the facts do not answer the question, say plainly that you do not know rather than guess.',
      `Facts:\n${grounding(plan)}`,
    ].join('\n')
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      body: JSON.stringify({
        model: options.model,
        messages: [{ role: 'system', content: system }, ...history, { role: 'user', content: input.message }],
        temperature: 0.2,
        max_tokens: 400,
      }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) throw new Error(`chat completions answered ${response.status}`)
    const body = (await response.json()) as Completion
    const content = body.choices?.[0]?.message?.content
    if (typeof content !== 'string' || content.trim().length === 0) throw new Error('chat completions answered without content')
    const tokens = body.usage?.total_tokens
    return { text: content.trim(), tokens: typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : 0 }
  }
}
