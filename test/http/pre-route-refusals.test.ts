import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { rawConnection } from '../helpers/raw-http.ts'

// Refusals made before any route runs, over real sockets: the parser's own (oversized headers,
// broken HTTP) and the router's (a URL it cannot decode).
const { app } = await buildTestApp()
let port = 0
beforeAll(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = (app.server.address() as { port: number }).port
})
afterAll(() => app.close())

const PROBLEM = 'application/problem+json; charset=utf-8'
const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`

describe('a 20 KB header (headers too large)', () => {
  it('answers a 431 problem with Connection: close and closes cleanly, so the client does not reuse the socket', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send(get('/api/pricing', `X-Big: ${'a'.repeat(20_000)}\r\n`))
    expect(res.status).toBe(431)
    expect(res.headers['content-type']).toBe(PROBLEM)
    expect(res.headers['connection']).toBe('close')
    expect(JSON.parse(res.body)).toEqual({
      type: 'urn:problem-type:headers_too_large',
      title: 'Request Header Fields Too Large',
      status: 431,
      detail: 'The request line and headers are larger than the service accepts',
      code: 'headers_too_large',
    })
    expect(await connection.closed()).toBe('closed')
  })

  it('on /oauth/token answers the RFC 6749 shape', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send(`POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(res.status).toBe(431)
    expect(res.headers['connection']).toBe('close')
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' })
  })

  it('on /api/agent/chat answers an AgentError', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send(`POST /api/agent/chat HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(res.status).toBe(431)
    expect(JSON.parse(res.body)).toEqual({ error: 'invalid-request' })
  })

  it('a request on a new connection afterwards is served', async () => {
    const connection = await rawConnection(port)
    expect((await connection.send(get('/api/pricing'))).status).toBe(200)
    connection.destroy()
  })
})

describe('HEAD with a 16 KB URL', () => {
  it('answers 431 without a body and with Connection: close', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send(`HEAD /api/pricing?q=${'b'.repeat(16_384)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, { head: true })
    expect(res.status).toBe(431)
    expect(res.headers['connection']).toBe('close')
    expect(await connection.closed()).toBe('closed')
    expect(connection.leftover()).toBe('')
  })
})

describe('a URL the router cannot decode (GET /x%zz)', () => {
  it('answers a 400 problem that does not echo the URL, and keeps the connection usable', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send(get('/x%zz'))
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toBe(PROBLEM)
    expect(JSON.parse(res.body)).toEqual({
      type: 'urn:problem-type:bad_request',
      title: 'Bad Request',
      status: 400,
      detail: 'The request URL is malformed',
      code: 'bad_request',
    })
    expect(res.body).not.toContain('%zz')
    expect(res.body).not.toContain('FST_')
    expect(res.headers['x-request-id']).toBeDefined()
    // Nothing was closed, so nothing says so: the same connection serves the next request.
    expect(res.headers['connection']).not.toBe('close')
    expect((await connection.send(get('/api/pricing'))).status).toBe(200)
    connection.destroy()
  })

  it('HEAD gets the same status and no body', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send('HEAD /x%zz HTTP/1.1\r\nHost: localhost\r\n\r\n', { head: true })
    expect(res.status).toBe(400)
    expect((await connection.send(get('/api/pricing'))).status).toBe(200)
    connection.destroy()
  })

  it('under /oauth and /agent/identity answers RFC 6749, under /api/agent an AgentError', async () => {
    const connection = await rawConnection(port)
    for (const path of ['/oauth/to%zzken', '/agent/identity/%zz']) {
      const res = await connection.send(get(path))
      expect(res.status).toBe(400)
      expect(JSON.parse(res.body)).toEqual({ error: 'invalid_request', error_description: 'The request URL is malformed' })
    }
    const agent = await connection.send(get('/api/agent/%zz'))
    expect(JSON.parse(agent.body)).toEqual({ error: 'invalid-request' })
    connection.destroy()
  })
})

describe('bytes that are not HTTP', () => {
  it('answer a 400 problem with Connection: close', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send('HELLO THERE\r\n\r\n')
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toBe(PROBLEM)
    expect(res.headers['connection']).toBe('close')
    expect(JSON.parse(res.body)).toMatchObject({ code: 'bad_request' })
    expect(await connection.closed()).toBe('closed')
  })
})
