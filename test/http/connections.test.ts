import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { LINGER_BYTES } from '../../src/infra/connections.ts'
import { freshDatabaseUrl } from '../helpers/database.ts'
import { startServerProcess, waitUntilReady } from '../helpers/process.ts'
import { rawConnection } from '../helpers/raw-http.ts'

// Over real sockets to the server as its own process: in one process the client and the server
// share an event loop, and the race between an early answer and a client still writing hides.
// TRUST_PROXY lets each request name its own client address, so only the requests meant to meet
// the rate limiter do.
const server = await startServerProcess({ DATABASE_URL: await freshDatabaseUrl(), TRUST_PROXY: 'true' })
await waitUntilReady(server)
const port = Number(new URL(server.url).port)

const FIVE_MB = Buffer.alloc(5 * 1024 * 1024, 'a')
let address = 0
const nextAddress = () => `198.51.100.${(++address % 250) + 1}`

async function postBig(from: string): Promise<string> {
  try {
    const res = await fetch(`${server.url}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: FIVE_MB,
    })
    const body = (await res.json()) as { error?: string }
    return `${res.status} ${body.error}`
  } catch (error) {
    return `network error: ${((error as Error).cause as { code?: string } | undefined)?.code ?? (error as Error).message}`
  }
}

describe('a request body over the limit', () => {
  it('100 requests of 5 MB one after another each read their 413', { timeout: 120_000 }, async () => {
    const outcomes: string[] = []
    for (let i = 0; i < 100; i++) outcomes.push(await postBig(nextAddress()))
    expect(outcomes.filter((o) => o !== '413 invalid_request')).toEqual([])
  })

  it('the early 429 of the rate limiter is read as well', { timeout: 60_000 }, async () => {
    const from = '203.0.113.9'
    const outcomes: string[] = []
    for (let i = 0; i < 40; i++) outcomes.push(await postBig(from))
    // 30 a minute from one address: the rest are refused before their body is read.
    expect(outcomes.filter((o) => o === '413 invalid_request')).toHaveLength(30)
    expect(outcomes.slice(30)).toEqual(Array(10).fill('429 rate_limited'))
  })

  it('keeps the connection in step: the rest of the body is discarded and the next request is served on it', async () => {
    const connection = await rawConnection(port)
    const body = Buffer.alloc(2 * 1024 * 1024, 'b')
    const head = `POST /agent/identity HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: ${nextAddress()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const refused = await connection.send(Buffer.concat([Buffer.from(head), body]))
    expect(refused.status).toBe(413)
    expect(refused.headers['connection']).not.toBe('close')
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'invalid_request' })
    const next = await connection.send('GET /api/pricing HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(next.status).toBe(200)
    connection.destroy()
  })

  it('discards no more than its bound: a client that keeps sending is cut off after it', { timeout: 60_000 }, async () => {
    const socket = connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    let received = ''
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
    const ended = new Promise<string>((resolve) => {
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
      socket.on('close', () => resolve('closed'))
    })
    socket.write(
      `POST /agent/identity HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: ${nextAddress()}\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n`,
    )
    const chunk = Buffer.alloc(256 * 1024, 'c')
    let sent = 0
    let open = true
    void ended.then(() => (open = false))
    while (open && sent < 256 * 1024 * 1024) {
      sent += chunk.length
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), ended])
    }
    await ended
    expect(received).toMatch(/^HTTP\/1\.1 413 /)
    // The bound, plus what the kernel's buffers held when the server stopped reading.
    expect(sent).toBeGreaterThan(LINGER_BYTES)
    expect(sent).toBeLessThan(LINGER_BYTES + 32 * 1024 * 1024)
  })
})

describe('CONNECT', () => {
  it('answers 405 in the problem shape and closes the connection', async () => {
    const connection = await rawConnection(port)
    const res = await connection.send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    expect(res.status).toBe(405)
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(res.headers['connection']).toBe('close')
    expect(res.headers['allow']).toContain('GET')
    expect(JSON.parse(res.body)).toEqual({
      type: 'urn:problem-type:method_not_allowed',
      title: 'Method Not Allowed',
      status: 405,
      detail: 'CONNECT is not served: this service is not a proxy',
      code: 'method_not_allowed',
    })
    expect(await connection.closed()).toBe('closed')
  })

  it('leaves the server serving', async () => {
    expect((await fetch(`${server.url}/api/pricing`)).status).toBe(200)
  })
})
