import { afterAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/app.ts'
import { signAccessToken } from '../../src/identity/oauth/access-tokens.ts'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'
import { makeAccount } from '../rest/helpers.ts'

// The fault: the database stops answering (packets dropped, connections stay open) while the pool
// is warm. Every database-backed endpoint must answer 503 within 2 s and serve again within 5 s of
// the database's return, without a restart. The embedded database runs in the process and cannot
// go silent this way; on it only the steady state is checked.

interface Probe {
  name: string
  request: () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>
  ok: number
  /** What the 503 must look like in the group's own shape. */
  unavailable: (body: Record<string, unknown>, contentType: string) => void
}

async function probesFor(app: App): Promise<Probe[]> {
  const created = (await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { locale: 'en' } })).json() as {
    session_id: string
    session_token: string
  }
  const session = { session_id: created.session_id, session_token: created.session_token }
  const registration = (await app.inject({ method: 'POST', url: '/agent/identity', payload: { type: 'anonymous' } })).json() as {
    claim_token: string
    registration_id: string
  }
  // An API token of a pro account for /v1, and an agent's access token for /mcp.
  const owner = await makeAccount(app, 'pro')
  const exchanged = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: (registration as unknown as { identity_assertion: string }).identity_assertion,
    }).toString(),
  })
  expect(exchanged.statusCode).toBe(200)
  // Every /mcp probe brings a token this instance has not checked yet (the agent's, with a new jti):
  // a token found clean is not asked about again for a second, and tools/list needs nothing else.
  const mcpToken = async () =>
    (
      await signAccessToken(app.signer, {
        subject: registration.registration_id,
        clientId: registration.registration_id,
        audience: `${app.config.BASE_URL}/mcp`,
        scope: ['mcp:read'],
      })
    ).token
  const mcpHeaders = async () => ({
    host: new URL(app.config.BASE_URL).host,
    authorization: `Bearer ${await mcpToken()}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  })
  let turn = 0
  const agent503 = (body: Record<string, unknown>, type: string) => {
    expect(type).toBe('application/json; charset=utf-8')
    expect(body).toMatchObject({ contactFallback: true })
  }
  const oauth503 = (body: Record<string, unknown>, type: string) => {
    expect(type).toBe('application/json; charset=utf-8')
    expect(body).toMatchObject({ error: 'temporarily_unavailable' })
  }
  const problem503 = (body: Record<string, unknown>, type: string) => {
    expect(type).toBe('application/problem+json; charset=utf-8')
    expect(body).toMatchObject({ status: 503 })
  }
  const jsonRpc503 = (body: Record<string, unknown>, type: string) => {
    expect(type).toBe('application/json; charset=utf-8')
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } })
  }
  return [
    { name: 'GET /api/ready', request: () => app.inject({ method: 'GET', url: '/api/ready' }), ok: 200, unavailable: problem503 },
    {
      name: 'POST /api/agent/bootstrap (new)',
      request: () => app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { locale: 'en' } }),
      ok: 200,
      unavailable: agent503,
    },
    {
      name: 'POST /api/agent/bootstrap (rehydrate)',
      request: () => app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: session }),
      ok: 200,
      unavailable: agent503,
    },
    {
      name: 'POST /api/agent/chat',
      request: () =>
        app.inject({
          method: 'POST',
          url: '/api/agent/chat',
          payload: { ...session, turn_id: `turn-${String(++turn).padStart(6, '0')}`, message: 'What does the pro plan cost?' },
        }),
      ok: 200,
      unavailable: agent503,
    },
    {
      name: 'POST /api/agent/event',
      request: () => app.inject({ method: 'POST', url: '/api/agent/event', payload: { ...session, type: 'assistant_opened' } }),
      ok: 200,
      unavailable: agent503,
    },
    {
      name: 'POST /agent/identity',
      request: () => app.inject({ method: 'POST', url: '/agent/identity', payload: { type: 'anonymous' } }),
      ok: 200,
      unavailable: oauth503,
    },
    {
      // The claim grant reads the claim from the database on every poll; "still pending" is its normal answer.
      name: 'POST /oauth/token (claim)',
      request: () =>
        app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            grant_type: 'urn:presence:agent-auth:grant-type:claim',
            claim_token: registration.claim_token,
            client_id: registration.registration_id,
          }).toString(),
        }),
      ok: 400,
      unavailable: oauth503,
    },
    {
      name: 'GET /v1/sites (API token)',
      request: () => app.inject({ method: 'GET', url: '/v1/sites', headers: owner.headers }),
      ok: 200,
      unavailable: problem503,
    },
    {
      name: 'POST /mcp (tools/list)',
      request: async () =>
        app.inject({
          method: 'POST',
          url: '/mcp',
          headers: await mcpHeaders(),
          payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      ok: 200,
      unavailable: jsonRpc503,
    },
  ]
}

// Built at load time: opening the embedded database can outlast a test's own time on a busy machine.
const steady = await buildTestApp({ env: { RATE_LIMIT_FACTOR: '100' } })

describe('database that stops answering (packets dropped, pool warm)', () => {
  it.runIf(onPostgres)(
    'every database-backed endpoint answers 503 within 2 s, and serves again within 5 s of its return, without a restart',
    async () => {
      const direct = new URL(await freshDatabaseUrl())
      const proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432))
      afterAll(() => proxy.close())
      const viaProxy = new URL(direct)
      viaProxy.port = String(proxy.port)
      const { app, logs } = await buildTestApp({ databaseUrl: viaProxy.toString(), env: { RATE_LIMIT_FACTOR: '100' }, captureLogs: true })
      // What the database watch said, and when: a failure names it.
      const watchSaid = () =>
        logs
          .filter((line) => /^database /.test(String(line['msg'])))
          .map((line) => `${String(line['time'])} ${String(line['msg'])}`)
          .join('; ')
      const probes = await probesFor(app)

      // Warm: every endpoint served, so the pool holds open connections that will go silent.
      for (const probe of probes) expect((await probe.request()).statusCode, probe.name).toBe(probe.ok)

      for (let round = 1; round <= 2; round++) {
        proxy.drop()
        const droppedAt = performance.now()
        // When the process knows of the outage: a request that came before may have been answered by
        // its own timer (the readiness probe's ping gives up after 1 s) and must not be counted as known.
        let knownAt = Infinity
        const watching = setInterval(() => {
          if (!app.store.available) knownAt = Math.min(knownAt, performance.now())
        }, 5)
        // Requests in flight when the network went silent, and requests arriving while it is.
        const during = await Promise.all(
          probes.map(async (probe) => {
            const first = await probe.request()
            const firstMs = performance.now() - droppedAt
            const later = await probe.request()
            // How long the later request took once the outage was known (it may have started before).
            return { probe, first, firstMs, later, laterMs: performance.now() - Math.max(droppedAt + firstMs, knownAt) }
          }),
        )
        clearInterval(watching)
        expect(
          knownAt - droppedAt,
          `the outage is known within 2 s (dropped at ${Math.round(performance.timeOrigin + droppedAt)}; the watch: ${watchSaid()})`,
        ).toBeLessThan(2000)
        for (const { probe, first, firstMs, later, laterMs } of during) {
          expect(first.statusCode, `${probe.name}: ${first.body}`).toBe(503)
          expect(firstMs, `${probe.name} took ${Math.round(firstMs)} ms`).toBeLessThan(2000)
          probe.unavailable(JSON.parse(first.body) as Record<string, unknown>, String(first.headers['content-type']))
          expect(first.body).not.toMatch(/timeout|terminated|ECONN|DB_UNAVAILABLE|at .*\.ts:\d+/i)
          // Once the outage is known, requests fail at once instead of waiting for a timeout.
          expect(later.statusCode, probe.name).toBe(503)
          expect(laterMs, `${probe.name} (while away) took ${Math.round(laterMs)} ms`).toBeLessThan(1000)
        }

        proxy.restore()
        const restoredAt = performance.now()
        for (const probe of probes) {
          let status = 0
          while (status !== probe.ok && performance.now() - restoredAt < 5000) {
            status = (await probe.request()).statusCode
            if (status !== probe.ok) await new Promise((resolve) => setTimeout(resolve, 50))
          }
          expect(status, `${probe.name} ${Math.round(performance.now() - restoredAt)} ms after the return`).toBe(probe.ok)
        }
      }
    },
  )

  it('with the database answering, the same endpoints serve (both drivers)', async () => {
    const { app } = steady
    expect(app.store.available).toBe(true)
    for (const probe of await probesFor(app)) expect((await probe.request()).statusCode, probe.name).toBe(probe.ok)
  })
})
