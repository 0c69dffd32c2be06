import type { Logger } from 'pino'
import type { KnowledgeBase } from '../knowledge.ts'
import { planTurn } from './builtin.ts'
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

// Amounts of money in a text: "49 €", "€49", "9,90 EUR", "19.00 euros".
const MONEY = /(?:€|eur(?:o|os)?\b)\s*(\d+(?:[.,]\d{1,2})?)|(\d+(?:[.,]\d{1,2})?)\s*(?:€|eur(?:o|os)?\b)/gi

/** True when every amount of money in the text is one of the price list's. */
export function quotesOnlyKnownPrices(text: string, known: ReadonlySet<number>): boolean {
  for (const match of text.matchAll(MONEY)) {
    const amount = Number((match[1] ?? match[2] ?? '').replace(',', '.'))
    if (!known.has(amount)) return false
  }
  return true
}

interface Completion {
  choices?: Array<{ message?: { content?: unknown } }>
  usage?: { total_tokens?: unknown }
}

/**
 * An OpenAI-compatible chat completions endpoint phrases the answer from the passages the built-in
 * ranking found; actions, suggestions and sources stay the built-in ones. Any failure (timeout,
 * error status, malformed answer, a price not on the list) falls back to the built-in answer.
 */
export function llmResponder(kb: KnowledgeBase, options: LlmOptions): Responder {
  const endpoint = completionsUrl(options.url)
  const timeoutMs = options.timeoutMs ?? LLM_TIMEOUT_MS

  return {
    name: 'llm',
    immediate: false,
    async respond(input: TurnInput): Promise<TurnPlan> {
      const plan = planTurn(kb, input)
      if (plan.fixed) return plan
      try {
        const { text, tokens } = await complete(input, plan)
        if (!quotesOnlyKnownPrices(text, kb.knownAmounts)) throw new Error('the model quoted a price that is not on the price list')
        return { ...plan, reply: clip(text), usage: { tokens } }
      } catch (error) {
        options.log.warn({ err: error, responder: 'llm' }, 'language model failed; answering with the built-in responder')
        return plan
      }
    },
  }

  async function complete(input: TurnInput, plan: TurnPlan): Promise<{ text: string; tokens: number }> {
    const context = plan.passages.length
      ? plan.passages.map((p, i) => `[${i + 1}] ${p.title} (${p.url})\n${p.text}`).join('\n\n')
      : '(no passage matched the question)'
    const history = (await input.history()).slice(-6).map((m) => ({ role: m.role === 'visitor' ? 'user' : 'assistant', content: m.text }))
    const system = [
      `You are ${input.persona ?? 'the sales assistant'} on the website of ${input.siteName}.`,
      `Answer in ${languageNames[input.locale]}, in at most 1200 characters, friendly and concise.`,
      'Use only the facts in the passages below. Quote prices exactly as they appear there and never state any other amount.',
      'If the passages do not answer the question, say so and offer help with plans, features, the SEO audit, domains or a demo.',
      `Passages:\n${context}`,
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
