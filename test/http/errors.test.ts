import { Type } from 'typebox'
import { Readable } from 'node:stream'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import { errors } from '../../src/errors.ts'
import { buildTestApp } from '../helpers/app.ts'

// Probe routes registered only in this test: a JSON endpoint with a strict schema, one that fails
// with a bug, and one whose database query fails.
async function probes(app: FastifyInstance) {
  app.post(
    '/probe/echo',
    { schema: { body: Type.Object({ name: Type.String({ maxLength: 20 }) }, { additionalProperties: false }) } },
    async (request) => request.body,
  )
  app.get('/probe/bug', async () => {
    const error = new Error('secret internal detail at /srv/app.ts:12') as Error & { code: string }
    error.code = 'ECUSTOM'
    throw error
  })
  app.get('/probe/conflict', async () => {
    throw new errors.conflict('The site already has that domain')
  })
  app.get('/probe/log', async (request) => {
    request.log.info({ body: { session_token: 'tok-secret-1', email: 'ada@example.com' }, token: 'tok-secret-2' }, 'probe')
    return { ok: true }
  })
  // A download the client abandons halfway, and work that stops when the client goes away.
  app.get('/probe/slow-stream', async (_request, reply) => {
    const body = new Readable({ read() {} })
    body.push('first chunk\n')
    return reply.type('text/plain').send(body)
  })
  app.get('/probe/abortable', async (request) => {
    await new Promise((_resolve, reject) =>
      request.signal.addEventListener('abort', () =>
        reject(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' })),
      ),
    )
  })
  app.get('/probe/child', async (request) => {
    request.log.child({ step: 'render' }).warn('from a child')
    request.log.debug('below the level')
    return { level: request.log.level }
  })
}

const { app, logs } = await buildTestApp({ plugins: [probes], captureLogs: true, env: { BODY_LIMIT_BYTES: '2048' } })
const isProblem = (res: { headers: Record<string, unknown> }) =>
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')

describe('bad input answers a clear 4xx problem, never a 500', () => {
  it('malformed JSON → 400 malformed_json', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    })
    expect(res.statusCode).toBe(400)
    isProblem(res)
    expect(res.json()).toEqual({
      type: 'urn:problem-type:malformed_json',
      title: 'Bad Request',
      status: 400,
      detail: 'The request body is not valid JSON',
      code: 'malformed_json',
    })
  })

  it('an empty JSON body → 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe/echo', headers: { 'content-type': 'application/json' }, payload: '' })
    expect(res.statusCode).toBe(400)
    isProblem(res)
  })

  it('a wrong content type → 415 unsupported_media_type', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe/echo', headers: { 'content-type': 'text/csv' }, payload: 'name\nada' })
    expect(res.statusCode).toBe(415)
    isProblem(res)
    expect(res.json()).toMatchObject({ code: 'unsupported_media_type', status: 415 })
  })

  it('an oversized body → 413 body_too_large', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(5000) }),
    })
    expect(res.statusCode).toBe(413)
    isProblem(res)
    expect(res.json()).toMatchObject({ code: 'body_too_large', status: 413 })
  })

  it('an unknown property → 400 validation_failed naming the field', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe/echo', payload: { name: 'ada', admin: true } })
    expect(res.statusCode).toBe(400)
    isProblem(res)
    expect(res.json()).toMatchObject({ code: 'validation_failed', detail: "The field 'admin' is not accepted here" })
  })

  it('an error from the registry keeps its lower-case code, status and message', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/conflict' })
    expect(res.statusCode).toBe(409)
    isProblem(res)
    expect(res.json()).toEqual({
      type: 'urn:problem-type:conflict',
      title: 'Conflict',
      status: 409,
      detail: 'The site already has that domain',
      code: 'conflict',
    })
  })

  it('an unknown route → 404 problem', async () => {
    const res = await app.inject({ method: 'GET', url: '/no/such/thing?x=1' })
    expect(res.statusCode).toBe(404)
    isProblem(res)
    expect(res.json()).toMatchObject({ code: 'not_found', detail: 'No resource at GET /no/such/thing' })
  })

  it('a bug → 500 with a generic message; the detail stays in the log', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/bug' })
    expect(res.statusCode).toBe(500)
    isProblem(res)
    expect(res.json()).toEqual({
      type: 'urn:problem-type:internal_error',
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred',
      code: 'internal_error',
    })
    expect(res.body).not.toContain('secret internal detail')
    expect(res.body).not.toContain('.ts')
    const logged = logs.find((l) => l['msg'] === 'request failed' && l['reqId'] === res.headers['x-request-id'])
    expect(JSON.stringify(logged)).toContain('secret internal detail')
  })
})

describe('every response', () => {
  it('carries an x-request-id, keeping a well-formed incoming one', async () => {
    const fresh = await app.inject({ method: 'GET', url: '/api/pricing' })
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const kept = await app.inject({ method: 'GET', url: '/api/pricing', headers: { 'x-request-id': 'lb-1234.abc' } })
    expect(kept.headers['x-request-id']).toBe('lb-1234.abc')
    const replaced = await app.inject({ method: 'GET', url: '/api/pricing', headers: { 'x-request-id': 'bad id <script>' } })
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const notFound = await app.inject({ method: 'GET', url: '/nope' })
    expect(notFound.headers['x-request-id']).toBeDefined()
  })

  it('carries the security headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/pricing' })
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains')
    expect(res.headers['referrer-policy']).toBe('no-referrer')
    expect(res.headers['x-powered-by']).toBeUndefined()
  })
})

describe('logging', () => {
  it('writes one line per request with its id, and redacts secrets and emails', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/probe/log?token=query-secret',
      headers: { authorization: 'Bearer header-secret' },
    })
    const id = res.headers['x-request-id']
    const lines = logs.filter((l) => l['reqId'] === id)
    expect(lines.map((l) => l['msg'])).toEqual(['probe', 'request'])
    expect(lines[1]).toMatchObject({ method: 'GET', route: '/probe/log', status: 200 })
    const text = JSON.stringify(lines)
    for (const secret of ['tok-secret-1', 'tok-secret-2', 'ada@example.com', 'header-secret', 'query-secret'])
      expect(text).not.toContain(secret)
    expect(text).toContain('[redacted]')
  })

  it('a request that logs nothing itself still gets its one line with its id', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/pricing' })
    const lines = logs.filter((l) => l['reqId'] === res.headers['x-request-id'])
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/api/pricing',
      operation: 'public.pricing',
      status: 200,
      level: 30,
    })
  })

  it('request.log behaves as a pino logger bound to the request: levels, children, the id on every line', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/child' })
    expect(res.json()).toEqual({ level: 'info' })
    const lines = logs.filter((l) => l['reqId'] === res.headers['x-request-id'])
    expect(lines.map((l) => l['msg'])).toEqual(['from a child', 'request'])
    expect(lines[0]).toMatchObject({ step: 'render', level: 40 })
  })
})

// The fault: validation errors leaked the validator's text ("querystring/action must be equal to
// constant … must match a schema in anyOf", "body must have required property '_csrf'").
describe('error messages do not leak schema internals', () => {
  const internals =
    /must be equal to constant|anyOf|oneOf|must have required property|must NOT|must match|querystring\/|body\/|#\/|instancePath|schemaPath/
  const cases: Array<{ name: string; request: InjectOptions; detail: string; code?: string }> = [
    {
      name: 'a query parameter outside its allowed values',
      request: { method: 'GET', url: '/api/cwv-tracker?action=delete&domain=example.com' },
      detail: "The query parameter 'action' has an unsupported value",
    },
    {
      name: 'an unknown query parameter',
      request: { method: 'GET', url: '/api/ready?verbose=1' },
      detail: "The query parameter 'verbose' is not accepted here",
    },
    {
      name: 'a missing required field',
      request: { method: 'POST', url: '/probe/echo', payload: {} },
      detail: "The field 'name' is required",
    },
    {
      name: 'a field of the wrong type',
      request: { method: 'POST', url: '/probe/echo', payload: { name: { nested: 1 } } },
      detail: "The field 'name' must be a string",
    },
    {
      name: 'a field too long',
      request: { method: 'POST', url: '/probe/echo', payload: { name: 'x'.repeat(21) } },
      detail: "The field 'name' must be at most 20 characters long",
    },
    {
      name: 'a body that is not an object',
      request: { method: 'POST', url: '/probe/echo', payload: '[1,2]', headers: { 'content-type': 'application/json' } },
      detail: 'The request body is not in the expected form',
    },
  ]
  for (const { name, request, detail } of cases) {
    it(`${name}: a short message naming the field; the validator's text only in the log`, async () => {
      const res = await app.inject(request)
      expect(res.statusCode).toBe(400)
      isProblem(res)
      expect(res.json()).toMatchObject({ code: 'validation_failed', detail })
      expect(res.body).not.toMatch(internals)
      const refused = logs.find((l) => l['msg'] === 'request refused' && l['reqId'] === res.headers['x-request-id'])
      // The validator's wording ("body/name must …") is kept for the operator.
      expect(String(refused?.['reason'])).toMatch(/must/)
      expect(refused?.['reason']).not.toBe(detail)
    })
  }

  it('a missing or empty domain on the public checks is 400 invalid_domain (INTERFACE.md 4.1)', async () => {
    for (const url of [
      '/api/seo-check/audit',
      '/api/seo-check/audit?d=',
      '/api/mcs-check',
      '/api/mcs-check?domain=',
      `/api/seo-check/audit?d=${'a'.repeat(400)}`,
    ]) {
      const res = await app.inject({ method: 'GET', url })
      expect(res.statusCode, url).toBe(400)
      isProblem(res)
      expect(res.json(), url).toMatchObject({ code: 'invalid_domain' })
      expect(res.body).not.toMatch(internals)
    }
  })

  it('the HTML consent form missing its _csrf field names it in plain words', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'decision=allow',
    })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.body).toMatch(/The field &#39;(_csrf|client_id|[a-z_]+)&#39; is required/)
    expect(res.body).not.toMatch(internals)
  })

  it('the OAuth token endpoint names the field in error_description', async () => {
    for (const payload of ['', 'grant_type=refresh_token&refresh_token=x&extra=1', `grant_type=${'g'.repeat(600)}`]) {
      const res = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      })
      expect(res.statusCode, payload).toBe(400)
      const body = res.json() as { error: string; error_description: string }
      expect(body.error_description, payload).not.toMatch(internals)
    }
  })
})

// The fault: a client that hangs up was logged at error level, as if the service had failed.
describe('client aborts are logged as info', () => {
  it('a stream the client abandons and work stopped by the abort log at info, never error', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const before = logs.length
    for (const path of ['/probe/slow-stream', '/probe/abortable']) {
      const controller = new AbortController()
      const pending = fetch(`http://127.0.0.1:${port}${path}`, { signal: controller.signal }).then(async (res) => {
        const reader = res.body!.getReader()
        await reader.read()
        controller.abort()
      })
      if (path === '/probe/abortable') setTimeout(() => controller.abort(), 200)
      await pending.catch(() => {})
    }
    // The server notices the hang-up when it next touches the socket.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const lines = logs.slice(before)
    expect(lines.filter((l) => l['msg'] === 'request aborted by the client').length).toBeGreaterThanOrEqual(1)
    expect(
      lines.filter((l) => Number(l['level']) >= 50),
      JSON.stringify(lines),
    ).toEqual([])
  })
})
