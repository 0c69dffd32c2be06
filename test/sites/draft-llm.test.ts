import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { SETUP_TIMEOUT_MS } from './helpers.ts'
import { api, BAKERY } from './template-helpers.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** A small stand-in for an OpenAI-compatible chat completions server on loopback, answering as told. */
type Mode = { kind: 'answer'; content: string } | { kind: 'delay'; ms: number }
let mode: Mode = { kind: 'answer', content: '{}' }
const received: Array<{ url: string; body: Json }> = []
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let raw = ''
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
  req.on('end', () => {
    received.push({ url: req.url ?? '', body: JSON.parse(raw) })
    const current = mode
    const answer = (content: string) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 200, completion_tokens: 300, total_tokens: 500 },
        }),
      )
    if (current.kind === 'delay') setTimeout(() => !res.destroyed && answer('{}'), current.ms)
    else answer(current.content)
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`

const written = (about: string) =>
  JSON.stringify({
    fr: {
      tagline: 'Le bon pain de Lyon',
      intro: 'Une boulangerie de quartier, du pain cuit sur place.',
      about,
      faq: [{ question: 'Puis-je commander ?', answer: 'Indiquez ici comment commander.' }],
    },
  })

describe('the first draft worded by a model, checked, and the template’s words on any failure', () => {
  let t: LiveApp
  let call: ReturnType<typeof api>
  let owner: TestAccount

  beforeAll(async () => {
    // The draft's wait on the model is cut at its own timeout (8 s); the slow answer below takes longer.
    t = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test', AGENT_LLM_URL: base, AGENT_LLM_MODEL: 'test-model' } })
    owner = await makeAccount(t.app, 'pro')
    call = api(t.base, owner)
  }, SETUP_TIMEOUT_MS)

  async function draftHome(): Promise<{ hero: Json; about: Json }> {
    const created = await call('POST', '/v1/sites', { name: 'Martin', default_locale: 'fr', template: 'bakery', business: BAKERY })
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    const pages = (await call('GET', `/v1/sites/${created.json['id']}/pages`)).json['data'] as Json[]
    const blocksOf = async (path: string) =>
      (await call('GET', `/v1/pages/${pages.find((p) => p.path === path)!['id']}/blocks`)).json['data'] as Json[]
    return { hero: (await blocksOf('/'))[0]!['content'], about: (await blocksOf('/a-propos'))[0]!['content'] }
  }

  it('uses the model’s words when they have the blocks’ shape and state only the facts given', async () => {
    mode = { kind: 'answer', content: written('Chez Boulangerie Martin, le pain est pétri chaque nuit.\n\nRaconte ici ton histoire.') }
    received.length = 0
    const { hero, about } = await draftHome()
    expect(hero['heading']).toBe('Le bon pain de Lyon')
    expect(about['markdown']).toContain('pétri chaque nuit')
    expect(received).toHaveLength(1)
    expect(received[0]!.url).toBe('/v1/chat/completions')
    expect(received[0]!.body['model']).toBe('test-model')
    expect(JSON.stringify(received[0]!.body['messages'])).toContain('12 rue Mercière')
  })

  for (const [name, next] of [
    ['broken JSON', { kind: 'answer', content: '{"fr": {"tagline": "Le bon pain' }],
    ['an invented price', { kind: 'answer', content: written('Notre baguette ne coûte que 1,20 €.') }],
    ['an invented number', { kind: 'answer', content: written('Depuis 1987, nous cuisons le pain.') }],
    ['a timeout', { kind: 'delay', ms: 12_000 }],
  ] as const) {
    it(`falls back to the template’s words on ${name}`, async () => {
      mode = next
      const { hero, about } = await draftHome()
      expect(hero['heading']).toBe('Cuit chaque matin à Lyon')
      expect(about['markdown']).toContain('Boulangerie Martin fait son pain chaque jour à Lyon')
    }, 30_000)
  }
})
