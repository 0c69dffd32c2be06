import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { buildKnowledgeBase } from '../../src/agent/knowledge.ts'
import { completionsUrl, llmResponder, quotesOnlyKnownPrices } from '../../src/agent/responder/llm.ts'
import { buildTestApp } from '../helpers/app.ts'
import { contractErrors } from './contract.ts'
import { bootstrap, chat } from './helpers.ts'

/** A small stand-in for an OpenAI-compatible chat completions server, on loopback. */
type Mode =
  | { kind: 'answer'; content: string; tokens?: number }
  | { kind: 'status'; status: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'garbage' }
let mode: Mode = { kind: 'answer', content: 'ok' }
const received: Array<{
  url: string
  authorization: string | undefined
  body: { model: string; messages: Array<{ role: string; content: string }> }
}> = []

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let raw = ''
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
  req.on('end', () => {
    received.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw) })
    const current = mode
    if (current.kind === 'status')
      return void res.writeHead(current.status, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}')
    if (current.kind === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[]}')
    const answer = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: current.kind === 'answer' ? current.content : 'late' },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 100, completion_tokens: 23, total_tokens: current.kind === 'answer' ? (current.tokens ?? 123) : 1 },
        }),
      )
    if (current.kind === 'delay') setTimeout(answer, current.ms)
    else answer()
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`

const { app } = await buildTestApp({
  env: { BASE_URL: 'https://platform.test', AGENT_LLM_URL: base, AGENT_LLM_API_KEY: 'sk-test-key', AGENT_LLM_MODEL: 'test-model' },
})

beforeEach(() => {
  received.length = 0
})

describe('OpenAI-compatible responder', () => {
  it('phrases the answer with the model, grounded in the retrieved passages, and reports usage.tokens', async () => {
    mode = { kind: 'answer', content: 'The Pro plan costs €49 a month.', tokens: 123 }
    const s = await bootstrap(app)
    const res = await chat(app, s, 'How much is the Pro plan?')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(contractErrors('chat', body)).toEqual([])
    expect(body.reply).toBe('The Pro plan costs €49 a month.')
    expect(body.usage).toEqual({ tokens: 123 })
    expect(body.sources?.[0]?.url).toBe('/en/pricing')

    expect(received).toHaveLength(1)
    const call = received[0]!
    expect(call.url).toBe('/v1/chat/completions')
    expect(call.authorization).toBe('Bearer sk-test-key')
    expect(call.body.model).toBe('test-model')
    const system = call.body.messages[0]!
    expect(system.role).toBe('system')
    expect(system.content).toContain('Answer in English')
    expect(system.content).toContain('€49')
    expect(call.body.messages.at(-1)).toEqual({ role: 'user', content: 'How much is the Pro plan?' })
  })

  it('sends the earlier conversation along', async () => {
    mode = { kind: 'answer', content: 'Sure.' }
    const s = await bootstrap(app, { locale: 'de' })
    await chat(app, s, 'Was kostet Lite?')
    await chat(app, s, 'Und mit eigener Domain?')
    const second = received[1]!.body.messages
    expect(second[0]!.content).toContain('Answer in German')
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
  })

  it('falls back to the built-in answer when the model fails, answers garbage or quotes a price not on the list', async () => {
    const s = await bootstrap(app)
    for (const failing of [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 429 },
      { kind: 'garbage' },
      { kind: 'answer', content: 'Pro is only €42 today!' },
    ] as Mode[]) {
      mode = failing
      const res = await chat(app, s, 'How much is the Pro plan?')
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(contractErrors('chat', body)).toEqual([])
      expect(body.reply).toContain('€49')
      expect(body.reply).not.toContain('€42')
      expect(body.usage).toBeUndefined()
    }
  })

  it('grounds the model in the built-in answer and tells it to admit what it does not know', async () => {
    mode = { kind: 'answer', content: 'Plus costs €19 and Pro €49 a month.' }
    const s = await bootstrap(app)
    const body = (await chat(app, s, 'What is the difference between Plus and Pro?')).json()
    expect(body.reply).toBe('Plus costs €19 and Pro €49 a month.')
    const system = received[0]!.body.messages[0]!.content
    expect(system).toContain('Per month, Plus costs €19 and Pro €49.')
    expect(system).toMatch(/first sentence answers the question/)
    expect(system).toMatch(/say plainly that you do not know/)
  })

  it('sends the built-in refusal without asking the model when retrieval is not confident', async () => {
    mode = { kind: 'answer', content: 'Yes, nonprofits get 50% off!' }
    const s = await bootstrap(app)
    const body = (await chat(app, s, 'Do you offer a discount for nonprofits?')).json()
    expect(received).toHaveLength(0)
    expect(body.reply).toMatch(/^I can't answer that for sure/)
    expect(body.usage).toBeUndefined()
    expect((await chat(app, s, 'Who won the football world cup?')).json().reply).toMatch(/don't have reliable information/)
    expect(received).toHaveLength(0)
  })

  it('refuses an amount that is on the price list but not among the facts of this answer', async () => {
    // €99 is Max's price: a real amount, but not Pro's.
    mode = { kind: 'answer', content: 'Pro costs €99 a month.' }
    const s = await bootstrap(app)
    const body = (await chat(app, s, 'What does the Pro plan cost?')).json()
    expect(body.reply).toMatch(/^Pro costs €49 a month, or €470\.40 a year/)
    expect(body.usage).toBeUndefined()
  })

  it('sets the model’s French answer in French typography', async () => {
    mode = { kind: 'answer', content: 'Pro coûte 49 € par mois : dix sites !' }
    const s = await bootstrap(app, { locale: 'fr' })
    const body = (await chat(app, s, 'Combien coûte la formule Pro ?')).json()
    expect(body.reply).toBe('Pro coûte 49 € par mois\u00a0: dix sites\u202f!')
  })

  it('does not ask the model to rephrase fixed notices such as a handoff', async () => {
    mode = { kind: 'answer', content: 'should not be used' }
    const s = await bootstrap(app)
    const body = (await chat(app, s, 'I want to talk to a human')).json()
    expect(body.handoff.state).toBe('requested')
    expect(received).toHaveLength(0)
  })

  it('gives up after its timeout and answers with the built-in responder', async () => {
    mode = { kind: 'delay', ms: 1500 }
    const kb = buildKnowledgeBase()
    const responder = llmResponder(kb, { url: base, apiKey: undefined, model: 'm', timeoutMs: 150, log: pino({ level: 'silent' }) })
    const started = Date.now()
    const plan = await responder.respond({
      locale: 'en',
      message: 'How much is the Pro plan?',
      pagePath: undefined,
      capabilities: { booking: false, lead: false, handoff: false },
      handoff: 'none',
      persona: undefined,
      siteName: 'Test',
      history: async () => [],
    })
    expect(Date.now() - started).toBeLessThan(1000)
    expect(plan.reply).toContain('€49')
    expect(plan.usage).toBeUndefined()
    expect(received[0]!.authorization).toBeUndefined()
  })
})

describe('responder helpers', () => {
  it('accepts AGENT_LLM_URL as an API base or as the endpoint itself', () => {
    expect(completionsUrl('https://llm.example/v1')).toBe('https://llm.example/v1/chat/completions')
    expect(completionsUrl('https://llm.example/v1/')).toBe('https://llm.example/v1/chat/completions')
    expect(completionsUrl('https://llm.example/v1/chat/completions')).toBe('https://llm.example/v1/chat/completions')
  })

  it('recognises prices that are not on the price list', () => {
    const known = buildKnowledgeBase().knownAmounts
    expect(quotesOnlyKnownPrices('Pro costs €49, Max 99 € and Lite 9,00 EUR; yearly 470,40 €.', known)).toBe(true)
    expect(quotesOnlyKnownPrices('Pro costs €45.', known)).toBe(false)
    expect(quotesOnlyKnownPrices('Ten sites and 1000 requests an hour.', known)).toBe(true)
    // Thousands in every spelling, and amounts written with no-break spaces.
    expect(quotesOnlyKnownPrices('Max costs 1\u202f188,00\u00a0€ a year.', known)).toBe(false)
    expect(quotesOnlyKnownPrices('Max costs €1,188 a year.', known)).toBe(false)
    expect(quotesOnlyKnownPrices('Pro kostet 470,40\u00a0€ im Jahr.', known)).toBe(true)
    expect(quotesOnlyKnownPrices('Max: EUR 950.40 a year.', known)).toBe(true)
  })
})
