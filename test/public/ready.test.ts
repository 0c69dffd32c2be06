import { afterAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'

describe('GET /api/ready', () => {
  it('answers 200 when the database answers and is migrated', async () => {
    const { app } = await buildTestApp()
    const res = await app.inject({ method: 'GET', url: '/api/ready' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ready', database: onPostgres ? 'postgres' : 'embedded' })
    expect(res.headers['cache-control']).toBe('no-store')
  })

  it('refuses query parameters', async () => {
    const { app } = await buildTestApp()
    const res = await app.inject({ method: 'GET', url: '/api/ready?verbose=1' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'validation_failed' })
  })

  it.runIf(onPostgres)('answers 503 while the database is cut off and 200 again once it is back, without a restart', async () => {
    const direct = new URL(await freshDatabaseUrl())
    const proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432))
    afterAll(() => proxy.close())
    const viaProxy = new URL(direct)
    viaProxy.port = String(proxy.port)
    const { app } = await buildTestApp({ databaseUrl: viaProxy.toString() })

    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200)

    proxy.cut()
    const down = await app.inject({ method: 'GET', url: '/api/ready' })
    expect(down.statusCode).toBe(503)
    expect(down.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(down.json()).toMatchObject({ status: 503, code: 'not_ready' })
    expect(down.body).not.toMatch(/ECONNREFUSED|ECONNRESET|terminated|at .*\.js/)

    proxy.restore()
    let status = 0
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await app.inject({ method: 'GET', url: '/api/ready' })).statusCode
      if (status !== 200) await new Promise((r) => setTimeout(r, 100))
    }
    expect(status).toBe(200)
  })
})
