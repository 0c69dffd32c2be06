import type { InjectOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { App } from '../src/app.ts'
import { CONSENT_VERSION } from '../src/domain/leads/consent.ts'
import { insertLead } from '../src/domain/leads/leads.ts'
import { createSite } from '../src/domain/sites/sites.ts'
import { bootstrap, chat } from './agent/helpers.ts'
import { buildTestApp } from './helpers/app.ts'
import { makeAccount } from './rest/helpers.ts'
import { withAssistantAddOn } from './helpers/add-ons.ts'

// Malformed bodies, headers, queries and tokens across every route that /openapi.json lists, from
// a fixed seed, so a failure reproduces. The routes are read at run time: a route added later is
// fuzzed without touching this file. No answer may be a 5xx (apart from the documented 503s of
// providers this test does not configure), and no body may carry a stack trace, a database
// driver's message or the validator's internals.
// /v1 is fuzzed behind a real API token of a pro account holding every scope, with real ids of
// that account's sites, pages, blocks, domains, builds, leads, tokens, webhooks and conversations
// mixed with malformed ones, so the handlers run and not only the frame's refusals.

const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5eed_2026)
const REQUESTS = 4000
const CONCURRENCY = 8

/** Answers the /v1 frame gives before a handler runs: input, credentials, plan, size and media type. */
const FRAME_REFUSALS = new Set([400, 401, 403, 413, 414, 415, 429])

/** Providers that answer a documented 503 when not configured; the test configures none. */
const UNCONFIGURED_PROVIDER_CODES = new Set(['mcs_unavailable', 'cwv_unavailable', 'crux_unavailable', 'billing_unavailable'])

/**
 * What of a pattern a body shows that the request did not send: a page or message may repeat the
 * client's own input (escaped), which is no leak of ours.
 */
function leaked(body: string, pattern: RegExp, request: { url?: unknown; payload?: unknown; headers?: unknown }): string | undefined {
  const match = pattern.exec(body)?.[0]
  if (!match) return undefined
  let sent = `${String(request.url)} ${typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload ?? '')} ${JSON.stringify(request.headers ?? {})}`
  try {
    sent += ` ${decodeURIComponent(sent.replace(/\+/g, ' '))}`
  } catch {
    // a malformed escape is part of the fuzz; compare with the raw text only
  }
  return sent.includes(match) ? undefined : match
}

const LEAKS: Array<[string, RegExp]> = [
  ['stack trace', /\n\s+at [^\n]+:\d+:\d+|at [\w.<>]+ \([^)]*\.(ts|js|mjs):\d+/],
  ['source path', /node_modules|\/src\/[\w/-]+\.ts|file:\/\//],
  [
    'driver message',
    /duplicate key|violates|syntax error at or near|invalid input syntax|relation "|column "|PGlite|DB_UNAVAILABLE|ECONNREFUSED|Connection terminated|Query read timeout/i,
  ],
  [
    'validator internals',
    /must be equal to constant|must match a schema|must have required property|must NOT have|must be equal to one of|(body|querystring|params|headers)\/\w+ must|\b(body|querystring) must\b|instancePath|schemaPath|#\/properties|FST_[A-Z_]+/,
  ],
]

/** mulberry32: small, fast and the same on every machine. */
function prng(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T
  const chance = (p: number) => next() < p
  return { next, int, pick, chance }
}
type Random = ReturnType<typeof prng>

const STRINGS = [
  '',
  ' ',
  'a',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '\u0000',
  '\ud800',
  '💥'.repeat(40),
  'é',
  'ß',
  "' OR 1=1 --",
  '"; drop table sites; --',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${jndi:x}',
  '../../etc/passwd',
  '%zz',
  '%00',
  'http://127.0.0.1:1/',
  'https://169.254.169.254/latest/meta-data',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'example.com',
  'xn--80ak6aa92e.com',
  'localhost',
  '[::1]',
  'a@b',
  'ada@example.com',
  'not an email',
  'ag_' + 'A'.repeat(22),
  'turn-0001',
  '2026-07-24.1',
  'en',
  'de',
  'zz',
  'lookup',
  'history',
  'track',
  'anonymous',
  'authorization_code',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:presence:agent-auth:grant-type:claim',
  'S256',
  'plain',
  'mcp:read mcp:tools',
]

function randomString(r: Random): string {
  if (r.chance(0.1)) return 'x'.repeat(r.pick([64, 201, 301, 2001, 5000, 40_000]))
  if (r.chance(0.15)) return Array.from({ length: r.int(40) }, () => String.fromCharCode(r.int(0x2fff))).join('')
  return r.pick(STRINGS)
}

function b64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
}

/** Tokens: random, JWT-shaped with hostile headers, and mutations of a real one. */
function randomToken(r: Random, real: string[]): string {
  const base = r.pick(real)
  switch (r.int(7)) {
    case 0:
      return randomString(r)
    case 1:
      return `${b64({ alg: r.pick(['none', 'HS256', 'RS256', 'ES256', '']), typ: 'at+jwt', kid: randomString(r) })}.${b64({ sub: randomString(r), scope: 'mcp:read mcp:tools', exp: r.pick([0, 9e15, -1, 'x']), aud: randomString(r) })}.${r.chance(0.5) ? '' : b64(randomString(r))}`
    case 2:
      return base.slice(0, r.int(base.length))
    case 3: {
      const at = r.int(base.length)
      return base.slice(0, at) + r.pick(['A', '_', '-', '.', '%']) + base.slice(at + 1)
    }
    case 4:
      return base.split('.').reverse().join('.')
    case 5:
      return `${base}.${base}`
    default:
      return base
  }
}

interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  const?: unknown
  enum?: unknown[]
  maxLength?: number
  minLength?: number
  pattern?: string
  format?: string
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

/** A value near the schema (right shape, hostile content) or far from it (another type altogether). */
function valueFor(r: Random, schema: Schema | undefined, real: string[], depth = 0): unknown {
  if (!schema || depth > 4 || r.chance(0.2))
    return r.pick<unknown>([
      null,
      true,
      0,
      -1,
      1.5,
      2 ** 53,
      'x',
      [],
      {},
      randomString(r),
      [randomString(r)],
      { a: { b: {} } },
      randomToken(r, real),
    ])
  const union = schema.anyOf ?? schema.oneOf
  if (union) return valueFor(r, r.pick(union), real, depth + 1)
  if (schema.const !== undefined) return r.chance(0.7) ? schema.const : randomString(r)
  if (schema.enum) return r.chance(0.7) ? r.pick(schema.enum) : randomString(r)
  const type = Array.isArray(schema.type) ? r.pick(schema.type) : schema.type
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (r.chance(schema.required?.includes(key) ? 0.85 : 0.5)) out[key] = valueFor(r, child, real, depth + 1)
      }
      if (r.chance(0.15))
        out[r.pick(['__proto__', 'constructor', 'extra', randomString(r).slice(0, 30)])] = valueFor(r, undefined, real, depth + 1)
      return out
    }
    case 'array':
      return Array.from({ length: r.pick([0, 1, 2, 50]) }, () => valueFor(r, schema.items, real, depth + 1))
    case 'integer':
    case 'number':
      return r.pick([0, -1, 1, 3.7, 2 ** 31, -(2 ** 63), 1e308, r.int(1000)])
    case 'boolean':
      return r.chance(0.8) ? r.chance(0.5) : 'yes'
    case 'string':
      return r.chance(0.3) ? randomToken(r, real) : randomString(r)
    default:
      return randomString(r)
  }
}

/** Strings a valid body is made of; those a field's pattern and length allow are picked from. */
const SAMPLES = [
  'Hello',
  'Welcome to the shop',
  '/',
  '/about',
  '/news/today',
  'https://example.com/',
  'https://example.com/a.png',
  '#contact',
  'mailto:ada@example.com',
  'ada@example.com',
  'en',
  'de',
  'shop.example',
  'www.shop-1.fuzz.example',
  'x',
]

/**
 * A value the schema accepts, so the request reaches its handler, with now and then one part
 * replaced by a hostile one (`valueFor`), which the handler's own checks must refuse cleanly.
 */
function validFor(r: Random, schema: Schema | undefined, real: string[], samples: string[], depth = 0): unknown {
  if (!schema) return 'x'
  if (depth > 0 && r.chance(0.05)) return valueFor(r, schema, real, depth)
  const union = schema.anyOf ?? schema.oneOf
  if (union) return validFor(r, r.pick(union), real, samples, depth + 1)
  if (schema.const !== undefined) return schema.const
  if (schema.enum) return r.pick(schema.enum)
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  switch (types.find((t) => t !== 'null') ?? types[0]) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || r.chance(0.5)) out[key] = validFor(r, child, real, samples, depth + 1)
      }
      return out
    }
    case 'array': {
      const length = Math.min(schema.maxItems ?? 3, Math.max(schema.minItems ?? 0, r.int(3)))
      const items = Array.from({ length }, () => validFor(r, schema.items, real, samples, depth + 1))
      return [...new Map(items.map((item) => [JSON.stringify(item), item])).values()]
    }
    case 'integer':
    case 'number': {
      const low = schema.minimum ?? 0
      return low + r.int(Math.max(1, Math.min(schema.maximum ?? low + 10, low + 10) - low + 1))
    }
    case 'boolean':
      return r.chance(0.5)
    case 'null':
      return null
    default: {
      if (schema.format === 'date-time') return '2030-01-01T00:00:00.000Z'
      if (schema.format === 'uri') return 'https://example.com/'
      const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined
      const fits = samples.filter(
        (sample) =>
          sample.length >= (schema.minLength ?? 0) && sample.length <= (schema.maxLength ?? Infinity) && (!pattern || pattern.test(sample)),
      )
      return fits.length ? r.pick(fits) : 'x'.repeat(Math.max(1, schema.minLength ?? 1))
    }
  }
}

function rawBody(r: Random): string {
  return r.pick([
    '{"a":',
    '{',
    '[',
    '"',
    'null',
    '[]',
    '1',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '['.repeat(5000) + ']'.repeat(5000),
    '\ufeff{}',
    '{"a":1e999999}',
    '{"a":"\\ud800"}',
    'a=1&a=2&b',
    '%zz=%zz',
    '\u0000',
    JSON.stringify({ x: 'y'.repeat(70_000) }),
  ])
}

interface Operation {
  method: string
  path: string
  query: Array<{ name: string; schema?: Schema; required?: boolean }>
  body?: { type: string; schema?: Schema }
}

/** The schema with every `#/components/schemas/…` reference replaced by what it names. */
function inlined(value: unknown, named: Record<string, unknown>, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => inlined(item, named, depth))
  if (typeof value !== 'object' || value === null || depth > 20) return value
  const ref = (value as { $ref?: unknown }).$ref
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/'))
    return inlined(named[ref.slice('#/components/schemas/'.length)], named, depth + 1)
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, inlined(child, named, depth + 1)]))
}

function operationsOf(document: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ in: string; name: string; schema?: Schema; required?: boolean }>
        requestBody?: { content?: Record<string, { schema?: Schema }> }
      }
    >
  >
  components?: { schemas?: Record<string, unknown> }
}): Operation[] {
  const named = document.components?.schemas ?? {}
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const content = Object.entries(operation.requestBody?.content ?? {})[0]
      operations.push({
        method: method.toUpperCase(),
        path,
        query: (operation.parameters ?? []).filter((p) => p.in === 'query'),
        body: content ? { type: content[0], schema: inlined(content[1].schema, named) as Schema } : undefined,
      })
    }
  }
  return operations
}

/** A path segment, percent-encoded; a lone surrogate goes out as the invalid UTF-8 it would be. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return '%ED%A0%80'
  }
}

/** The account /v1 is fuzzed as: its API token and the ids of what it owns, by resource. */
interface RestFixture {
  secret: string
  ids: Record<string, string[]>
}

/** The resource a path parameter names: `{site_id}` → sites, `/v1/blocks/{id}` → blocks. */
function resourceOf(path: string, parameter: string, before: string): string {
  const named: Record<string, string> = {
    site_id: 'sites',
    page_id: 'pages',
    session_id: 'conversations',
    build_id: 'builds',
    audit_id: 'audits',
    delivery_id: 'dead-letters',
  }
  if (named[parameter]) return named[parameter]
  return parameter === 'id' ? (before.split('/').filter(Boolean).at(-1) ?? path) : parameter
}

function pathFor(r: Random, op: Operation, real: string[], rest: RestFixture): string {
  // A real id is used less often by DELETE, so the account keeps something to work on.
  const realChance = op.method === 'DELETE' ? 0.15 : 0.6
  return op.path.replace(/\{([^}]+)\}/g, (_match, parameter: string, offset: number) => {
    const pool = rest.ids[resourceOf(op.path, parameter, op.path.slice(0, offset))] ?? []
    if (pool.length && r.chance(realChance)) return encodeSegment(r.pick(pool))
    return encodeSegment(r.chance(0.3) ? randomToken(r, real) : randomString(r)) || 'x'
  })
}

function requestFor(r: Random, op: Operation, real: string[], rest: RestFixture): InjectOptions {
  const path = pathFor(r, op, real, rest)
  const query = new URLSearchParams()
  const v1 = op.path.startsWith('/v1/')
  const samples = [...SAMPLES, ...Object.values(rest.ids).flat()]
  for (const param of op.query) {
    const value = () => (v1 && r.chance(0.6) ? validFor(r, param.schema, real, samples) : valueFor(r, param.schema, real))
    if (r.chance(param.required ? 0.85 : 0.5)) query.append(param.name, String(value()))
    if (r.chance(0.05)) query.append(param.name, randomString(r))
  }
  if (r.chance(0.15)) query.append(randomString(r).slice(0, 20) || 'q', randomString(r))
  const headers: Record<string, string> = {}
  if (v1 && r.chance(0.8)) headers['authorization'] = `Bearer ${rest.secret}`
  else if (r.chance(0.4)) headers['authorization'] = r.pick(['Bearer ', 'Basic ', 'bearer ', 'DPoP ', '']) + randomToken(r, real)
  if (r.chance(0.15)) headers['cookie'] = `${r.pick(['__Host-session', 'session', '_csrf', 'x'])}=${encodeSegment(randomString(r))}`
  if (r.chance(0.15))
    headers['origin'] = r.pick(['null', 'https://evil.example', 'http://localhost:3000', randomString(r).replace(/[^\x20-\x7e]/g, '')])
  if (r.chance(0.1)) headers['accept'] = r.pick(['text/html', 'application/xml', '*/*;q=0', '', 'application/json, text/event-stream'])
  if (r.chance(0.1)) headers['if-none-match'] = r.pick(['*', '"x"', 'W/"', randomString(r).replace(/[^\x20-\x7e]/g, '')])
  if (r.chance(0.1)) headers['idempotency-key'] = randomString(r).replace(/[^\x20-\x7e]/g, '')
  if (r.chance(0.1)) headers['if-match'] = r.pick(['*', '"0"', 'W/"1"', 'garbage'])
  if (r.chance(0.05)) headers['x-forwarded-for'] = r.pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1'])

  let payload: string | undefined
  const hasBody = op.method !== 'GET' && (op.body !== undefined || r.chance(0.3))
  if (hasBody) {
    const form = op.body?.type === 'application/x-www-form-urlencoded'
    const kind = r.int(10)
    if (kind < 6) {
      const value = v1 && r.chance(0.5) ? validFor(r, op.body?.schema, real, samples) : valueFor(r, op.body?.schema, real)
      payload =
        form && value && typeof value === 'object'
          ? new URLSearchParams(
              Object.entries(value).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            ).toString()
          : JSON.stringify(value)
      headers['content-type'] = form && typeof value === 'object' ? 'application/x-www-form-urlencoded' : 'application/json'
    } else {
      payload = rawBody(r)
      headers['content-type'] = r.pick([
        'application/json',
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/x-www-form-urlencoded; charset=latin1',
        'garbage',
      ])
    }
  }
  const search = query.toString()
  return { method: op.method as InjectOptions['method'], url: `${path}${search ? `?${search}` : ''}`, headers, payload }
}

/**
 * A pro account with every scope, and a few of everything it can own: sites with an active
 * domain and the assistant on, pages, blocks, a pending domain, builds, leads, a second token, a
 * webhook endpoint and conversations with a requested handoff.
 */
async function restFixture(app: App): Promise<RestFixture> {
  const owner = await makeAccount(app, 'pro', undefined, 10_000_000)
  await withAssistantAddOn(app.db, owner.accountId)
  const ids: Record<string, string[]> = {
    sites: [],
    pages: [],
    blocks: [],
    domains: [],
    builds: [],
    leads: [],
    tokens: [],
    webhooks: [],
    conversations: [],
  }
  const v1 = async (method: 'POST', url: string, payload: object = {}) => {
    const res = await app.inject({ method, url, headers: owner.headers, payload })
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300)
    return res.json() as { id: string }
  }
  const consent = { version: CONSENT_VERSION, digest: 'a'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
  for (let n = 0; n < 3; n++) {
    const hostname = `shop-${n}.fuzz.example`
    const site = await createSite(app.db, {
      name: `Shop ${n}`,
      accountId: owner.accountId,
      hostname,
      settings: { assistant: { enabled: true, capabilities: { handoff: true } } },
    })
    ids['sites']!.push(site.id)
    for (const path of ['/', '/about']) {
      const page = await v1('POST', `/v1/sites/${site.id}/pages`, { path, title: `Page ${path}` })
      ids['pages']!.push(page.id)
      ids['blocks']!.push((await v1('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'Hello' } })).id)
      ids['blocks']!.push((await v1('POST', `/v1/pages/${page.id}/blocks`, { type: 'hero', content: { heading: 'Welcome' } })).id)
    }
    ids['domains']!.push((await v1('POST', `/v1/sites/${site.id}/domains`, { hostname: `www.shop-${n}.fuzz.example` })).id)
    ids['builds']!.push((await v1('POST', `/v1/sites/${site.id}/rebuild`)).id)
    ids['leads']!.push(
      (await insertLead(app.db, app.keyring, {
        siteId: site.id,
        sessionId: null,
        email: `lead-${n}@example.com`,
        consent,
        source: 'assistant',
      }))!,
    )
    const session = await bootstrap(app, { url: `https://${hostname}/` })
    await chat(app, session, 'Can I talk to a human please?')
    ids['conversations']!.push(session.session_id)
  }
  ids['tokens']!.push((await v1('POST', '/v1/tokens', { name: 'second', scopes: ['read:sites'] })).id)
  ids['webhooks']!.push((await v1('POST', '/v1/webhooks', { url: 'https://hooks.fuzz.example/in' })).id)
  return { secret: owner.secret, ids }
}

describe('fuzz: malformed requests across every route of /openapi.json', () => {
  it(`${REQUESTS} requests from seed ${SEED.toString(16)}: no 5xx, no stack, driver message or validator internals`, async () => {
    // No background jobs: a build, a verification or a delivery the fuzz queues is not its subject.
    const { app } = await buildTestApp({ env: { RATE_LIMIT_FACTOR: '1000000', JOB_CONCURRENCY: '0' } })
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = operationsOf(document)
    expect(operations.length).toBeGreaterThan(10)

    // Real credentials to mutate: an agent registration, its token, a chat session.
    const registration = (await app.inject({ method: 'POST', url: '/agent/identity', payload: { type: 'anonymous' } })).json() as Record<
      string,
      string
    >
    const token = (
      await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: registration['identity_assertion'] ?? '',
        }).toString(),
      })
    ).json() as Record<string, string>
    const session = (await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { locale: 'en' } })).json() as Record<
      string,
      string
    >
    const rest = await restFixture(app)
    const real = [
      registration['identity_assertion'],
      registration['claim_token'],
      token['access_token'],
      session['session_id'],
      session['session_token'],
      rest.secret,
    ].filter((v): v is string => typeof v === 'string' && v.length > 0)
    expect(real.length).toBe(6)

    const r = prng(SEED)
    const picked = Array.from({ length: REQUESTS }, () => r.pick(operations))
    const requests = picked.map((op) => requestFor(r, op, real, rest))
    const reached = new Set<string>()
    const failures: string[] = []
    const statuses = new Map<number, number>()
    const v1Statuses = new Map<number, number>()
    const started = performance.now()
    for (let i = 0; i < requests.length; i += CONCURRENCY) {
      await Promise.all(
        requests.slice(i, i + CONCURRENCY).map(async (request, j) => {
          const res = await app.inject(request)
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
          if (String(request.url).startsWith('/v1/')) {
            v1Statuses.set(res.statusCode, (v1Statuses.get(res.statusCode) ?? 0) + 1)
            if (!FRAME_REFUSALS.has(res.statusCode)) reached.add(`${picked[i + j]!.method} ${picked[i + j]!.path}`)
          }
          const label = `#${i + j} ${request.method} ${String(request.url).slice(0, 120)} → ${res.statusCode}`
          if (res.statusCode >= 500) {
            const code = (() => {
              try {
                return (JSON.parse(res.body) as { code?: string }).code
              } catch {
                return undefined
              }
            })()
            if (!(res.statusCode === 503 && code && UNCONFIGURED_PROVIDER_CODES.has(code)))
              failures.push(`${label}: ${res.body.slice(0, 200)}`)
          }
          for (const [what, pattern] of LEAKS) {
            const leak = leaked(res.body, pattern, request)
            if (leak) failures.push(`${label}: ${what} (${leak}) in ${res.body.slice(0, 300)}`)
          }
        }),
      )
    }
    const seconds = (performance.now() - started) / 1000
    console.info(
      `fuzz: ${requests.length} requests over ${operations.length} operations in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; /v1 ${JSON.stringify(Object.fromEntries([...v1Statuses].sort()))}`,
    )
    const v1Operations = operations.filter((op) => op.path.startsWith('/v1/')).map((op) => `${op.method} ${op.path}`)
    console.info(
      `fuzz: /v1 handlers reached ${reached.size} of ${v1Operations.length}; not reached: ${v1Operations.filter((op) => !reached.has(op)).join(', ')}`,
    )
    expect(failures, failures.slice(0, 20).join('\n')).toEqual([])
    // The token works, so the handlers themselves are fuzzed, not only the frame's refusals.
    expect(reached.size).toBeGreaterThanOrEqual(Math.floor(v1Operations.length * 0.8))
    expect(seconds).toBeLessThan(60)
  }, 120_000)
})
