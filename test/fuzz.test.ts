import type { InjectOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from './helpers/app.ts'

// Malformed bodies, headers, queries and tokens across every route that /openapi.json lists, from
// a fixed seed, so a failure reproduces. The routes are read at run time: a route added later is
// fuzzed without touching this file. No answer may be a 5xx (apart from the documented 503s of
// providers this test does not configure), and no body may carry a stack trace, a database
// driver's message or the validator's internals.

const SEED = 0x5eed_2026
const REQUESTS = 2400
const CONCURRENCY = 8

/** Providers that answer a documented 503 when not configured; the test configures none. */
const UNCONFIGURED_PROVIDER_CODES = new Set(['mcs_unavailable', 'cwv_unavailable', 'crux_unavailable'])

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
  ['driver message', /duplicate key|violates|syntax error at or near|invalid input syntax|relation "|column "|PGlite|DB_UNAVAILABLE|ECONNREFUSED|Connection terminated|Query read timeout/i],
  ['validator internals', /must be equal to constant|must match a schema|must have required property|must NOT have|must be equal to one of|(body|querystring|params|headers)\/\w+ must|\b(body|querystring) must\b|instancePath|schemaPath|#\/properties|FST_[A-Z_]+/],
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
  '', ' ', 'a', 'null', 'undefined', 'true', '0', '-1', '1e309', 'NaN', '\u0000', '\ud800', '💥'.repeat(40), 'é', 'ß',
  "' OR 1=1 --", '"; drop table sites; --', '<script>alert(1)</script>', '{{7*7}}', '${jndi:x}', '../../etc/passwd', '%zz', '%00',
  'http://127.0.0.1:1/', 'https://169.254.169.254/latest/meta-data', 'javascript:alert(1)', 'file:///etc/passwd', 'example.com',
  'xn--80ak6aa92e.com', 'localhost', '[::1]', 'a@b', 'ada@example.com', 'not an email', 'ag_' + 'A'.repeat(22), 'turn-0001',
  '2026-07-24.1', 'en', 'de', 'zz', 'lookup', 'history', 'track', 'anonymous', 'authorization_code', 'refresh_token',
  'urn:ietf:params:oauth:grant-type:jwt-bearer', 'urn:presence:agent-auth:grant-type:claim', 'S256', 'plain', 'mcp:read mcp:tools',
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
}

/** A value near the schema (right shape, hostile content) or far from it (another type altogether). */
function valueFor(r: Random, schema: Schema | undefined, real: string[], depth = 0): unknown {
  if (!schema || depth > 4 || r.chance(0.2)) return r.pick<unknown>([null, true, 0, -1, 1.5, 2 ** 53, 'x', [], {}, randomString(r), [randomString(r)], { a: { b: {} } }, randomToken(r, real)])
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
      if (r.chance(0.15)) out[r.pick(['__proto__', 'constructor', 'extra', randomString(r).slice(0, 30)])] = valueFor(r, undefined, real, depth + 1)
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

function rawBody(r: Random): string {
  return r.pick([
    '{"a":', '{', '[', '"', 'null', '[]', '1', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"x":1}}}',
    '['.repeat(5000) + ']'.repeat(5000), '\ufeff{}', '{"a":1e999999}', '{"a":"\\ud800"}', 'a=1&a=2&b', '%zz=%zz', '\u0000',
    JSON.stringify({ x: 'y'.repeat(70_000) }),
  ])
}

interface Operation {
  method: string
  path: string
  query: Array<{ name: string; schema?: Schema; required?: boolean }>
  body?: { type: string; schema?: Schema }
}

function operationsOf(document: { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema?: Schema; required?: boolean }>; requestBody?: { content?: Record<string, { schema?: Schema }> } }>> }): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const content = Object.entries(operation.requestBody?.content ?? {})[0]
      operations.push({
        method: method.toUpperCase(),
        path,
        query: (operation.parameters ?? []).filter((p) => p.in === 'query'),
        body: content ? { type: content[0], schema: content[1].schema } : undefined,
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

function requestFor(r: Random, op: Operation, real: string[]): InjectOptions {
  const path = op.path.replace(/\{[^}]+\}/g, () => encodeSegment(r.chance(0.3) ? randomToken(r, real) : randomString(r)) || 'x')
  const query = new URLSearchParams()
  for (const param of op.query) {
    if (r.chance(param.required ? 0.85 : 0.5)) query.append(param.name, String(valueFor(r, param.schema, real)))
    if (r.chance(0.05)) query.append(param.name, randomString(r))
  }
  if (r.chance(0.15)) query.append(randomString(r).slice(0, 20) || 'q', randomString(r))
  const headers: Record<string, string> = {}
  if (r.chance(0.4)) headers['authorization'] = r.pick(['Bearer ', 'Basic ', 'bearer ', 'DPoP ', '']) + randomToken(r, real)
  if (r.chance(0.15)) headers['cookie'] = `${r.pick(['__Host-session', 'session', '_csrf', 'x'])}=${encodeSegment(randomString(r))}`
  if (r.chance(0.15)) headers['origin'] = r.pick(['null', 'https://evil.example', 'http://localhost:3000', randomString(r).replace(/[^\x20-\x7e]/g, '')])
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
      const value = valueFor(r, op.body?.schema, real)
      payload = form && value && typeof value === 'object' ? new URLSearchParams(Object.entries(value).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString() : JSON.stringify(value)
      headers['content-type'] = form && typeof value === 'object' ? 'application/x-www-form-urlencoded' : 'application/json'
    } else {
      payload = rawBody(r)
      headers['content-type'] = r.pick(['application/json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded; charset=latin1', 'garbage'])
    }
  }
  const search = query.toString()
  return { method: op.method as InjectOptions['method'], url: `${path}${search ? `?${search}` : ''}`, headers, payload }
}

describe('fuzz: malformed requests across every route of /openapi.json', () => {
  it(`${REQUESTS} requests from seed ${SEED.toString(16)}: no 5xx, no stack, driver message or validator internals`, async () => {
    const { app } = await buildTestApp({ env: { RATE_LIMIT_FACTOR: '1000000' } })
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = operationsOf(document)
    expect(operations.length).toBeGreaterThan(10)

    // Real credentials to mutate: an agent registration, its token, a chat session.
    const registration = (await app.inject({ method: 'POST', url: '/agent/identity', payload: { type: 'anonymous' } })).json() as Record<string, string>
    const token = (await app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: registration['identity_assertion'] ?? '' }).toString() })).json() as Record<string, string>
    const session = (await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { locale: 'en' } })).json() as Record<string, string>
    const real = [registration['identity_assertion'], registration['claim_token'], token['access_token'], session['session_id'], session['session_token']].filter((v): v is string => typeof v === 'string' && v.length > 0)
    expect(real.length).toBe(5)

    const r = prng(SEED)
    const requests = Array.from({ length: REQUESTS }, () => requestFor(r, r.pick(operations), real))
    const failures: string[] = []
    const statuses = new Map<number, number>()
    const started = performance.now()
    for (let i = 0; i < requests.length; i += CONCURRENCY) {
      await Promise.all(
        requests.slice(i, i + CONCURRENCY).map(async (request, j) => {
          const res = await app.inject(request)
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
          const label = `#${i + j} ${request.method} ${String(request.url).slice(0, 120)} → ${res.statusCode}`
          if (res.statusCode >= 500) {
            const code = (() => {
              try {
                return (JSON.parse(res.body) as { code?: string }).code
              } catch {
                return undefined
              }
            })()
            if (!(res.statusCode === 503 && code && UNCONFIGURED_PROVIDER_CODES.has(code))) failures.push(`${label}: ${res.body.slice(0, 200)}`)
          }
          for (const [what, pattern] of LEAKS) {
            const leak = leaked(res.body, pattern, request)
            if (leak) failures.push(`${label}: ${what} (${leak}) in ${res.body.slice(0, 300)}`)
          }
        }),
      )
    }
    const seconds = (performance.now() - started) / 1000
    console.info(`fuzz: ${requests.length} requests over ${operations.length} operations in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)
    expect(failures, failures.slice(0, 20).join('\n')).toEqual([])
    expect(seconds).toBeLessThan(60)
  }, 120_000)
})
