import { createServer, connect, type Server, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { contractErrors } from './contract.ts'
import { freshIp, turnId } from './helpers.ts'

/**
 * The database goes away: every agent endpoint answers 503 AgentError with contactFallback true
 * (never 500), and the service recovers by itself when the database is back. On the real server a
 * loopback proxy in front of PostgreSQL is cut and restored; on the embedded one the database is
 * closed under the running app.
 */

function expectUnavailable(res: { statusCode: number; json: () => unknown; body: string }, error: string) {
  expect(res.statusCode, res.body).toBe(503)
  const body = res.json()
  expect(contractErrors('error', body)).toEqual([])
  expect(body).toEqual({ error, contactFallback: true })
}

class Proxy {
  #server: Server | undefined
  readonly #sockets = new Set<Socket>()
  port = 0
  readonly #target: { host: string; port: number }

  constructor(target: { host: string; port: number }) {
    this.#target = target
  }

  async start(): Promise<void> {
    this.#server = createServer((client) => {
      const upstream = connect(this.#target.port, this.#target.host)
      for (const s of [client, upstream]) {
        this.#sockets.add(s)
        s.on('close', () => this.#sockets.delete(s))
        s.on('error', () => s.destroy())
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve))
    this.port = (this.#server.address() as { port: number }).port
  }

  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server?.close(() => resolve()))
    for (const s of this.#sockets) s.destroy()
    await closed
  }
}

describe.runIf(onPostgres)('database outage on PostgreSQL', async () => {
  const direct = new URL(await freshDatabaseUrl())
  const proxy = new Proxy({ host: direct.hostname, port: Number(direct.port || 5432) })
  await proxy.start()
  const proxied = new URL(direct)
  proxied.port = String(proxy.port)
  const { app } = await buildTestApp({ databaseUrl: proxied.toString(), env: { BASE_URL: 'https://platform.test', JOB_CONCURRENCY: '0' } })
  afterAll(() => proxy.cut().catch(() => {}))

  it('answers 503 with contactFallback on every endpoint while the database is away, and recovers', async () => {
    const created = await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: {}, remoteAddress: freshIp() })
    expect(created.statusCode).toBe(200)
    const s = created.json() as { session_id: string; session_token: string }
    const cap = { session_id: s.session_id, session_token: s.session_token }

    await proxy.cut()
    expectUnavailable(
      await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: {}, remoteAddress: freshIp() }),
      'agent-unavailable',
    )
    expectUnavailable(
      await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: cap, remoteAddress: freshIp() }),
      'agent-unavailable',
    )
    expectUnavailable(
      await app.inject({
        method: 'POST',
        url: '/api/agent/chat',
        payload: { ...cap, turn_id: turnId(), message: 'hi' },
        remoteAddress: freshIp(),
      }),
      'agent-unavailable',
    )
    expectUnavailable(
      await app.inject({
        method: 'POST',
        url: '/api/agent/event',
        payload: { ...cap, type: 'assistant_opened' },
        remoteAddress: freshIp(),
      }),
      'persistence-unavailable',
    )
    expectUnavailable(
      await app.inject({ method: 'DELETE', url: '/api/agent/bootstrap', payload: cap, remoteAddress: freshIp() }),
      'erasure-unavailable',
    )

    await proxy.start()
    let status = 0
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (
        await app.inject({
          method: 'POST',
          url: '/api/agent/chat',
          payload: { ...cap, turn_id: turnId(), message: 'back again?' },
          remoteAddress: freshIp(),
        })
      ).statusCode
      if (status !== 200) await new Promise((r) => setTimeout(r, 100))
    }
    expect(status).toBe(200)
    expect((await app.inject({ method: 'DELETE', url: '/api/agent/bootstrap', payload: cap, remoteAddress: freshIp() })).statusCode).toBe(
      204,
    )
  })
})

describe.runIf(!onPostgres)('database outage on the embedded database', async () => {
  const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test', JOB_CONCURRENCY: '0' } })

  it('answers 503 with contactFallback once the database is closed', async () => {
    const created = await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: {}, remoteAddress: freshIp() })
    const cap = { session_id: created.json().session_id as string, session_token: created.json().session_token as string }
    await app.store.close()
    expectUnavailable(
      await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: {}, remoteAddress: freshIp() }),
      'agent-unavailable',
    )
    expectUnavailable(
      await app.inject({
        method: 'POST',
        url: '/api/agent/chat',
        payload: { ...cap, turn_id: turnId(), message: 'hi' },
        remoteAddress: freshIp(),
      }),
      'agent-unavailable',
    )
    expectUnavailable(
      await app.inject({
        method: 'POST',
        url: '/api/agent/event',
        payload: { ...cap, type: 'assistant_opened' },
        remoteAddress: freshIp(),
      }),
      'persistence-unavailable',
    )
    expectUnavailable(
      await app.inject({ method: 'DELETE', url: '/api/agent/bootstrap', payload: cap, remoteAddress: freshIp() }),
      'erasure-unavailable',
    )
  })
})
