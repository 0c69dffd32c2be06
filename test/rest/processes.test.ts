import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { startServerProcess, waitUntilReady, type ServerProcess } from '../helpers/process.ts'
import { makeAccount } from './helpers.ts'

// Real server processes on one PostgreSQL database: the budget is shared and survives a restart,
// and a committed change keeps its audit record when the process is killed right after it.
describe.runIf(onPostgres)('/v1 across processes', async () => {
  const databaseUrl = onPostgres ? await freshDatabaseUrl() : ''
  const start = async (): Promise<ServerProcess> => {
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, JOB_CONCURRENCY: '0' })
    await waitUntilReady(server, 120_000)
    return server
  }
  const [one, two] = onPostgres ? await Promise.all([start(), start()]) : []
  const { app } = onPostgres ? await buildTestApp({ databaseUrl, env: { JOB_CONCURRENCY: '0' } }) : { app: undefined }

  const call = (server: ServerProcess, secret: string, init: RequestInit = {}, path = '/v1/account') =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...init.headers },
    })

  it('shares one hourly budget between two processes and keeps it across a restart', async () => {
    const account = await makeAccount(app!, 'max', undefined, 6)
    const remaining: string[] = []
    for (let i = 0; i < 6; i++) {
      const res = await call(i % 2 ? two! : one!, account.secret)
      expect(res.status).toBe(200)
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '')
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0'])
    for (const server of [one!, two!]) {
      const over = await call(server, account.secret)
      expect(over.status).toBe(429)
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    }

    one!.child.kill('SIGTERM')
    await one!.exited
    const restarted = await start()
    expect((await call(restarted, account.secret)).status).toBe(429)
    // Another account is unaffected.
    expect((await call(restarted, (await makeAccount(app!, 'max', undefined, 6)).secret)).status).toBe(200)
  }, 240_000)

  it('keeps the audit record of a committed change when the process is killed right after it', async () => {
    const account = await makeAccount(app!, 'pro')
    const res = await call(
      two!,
      account.secret,
      { method: 'POST', body: JSON.stringify({ name: 'before the crash', scopes: ['read:sites'] }) },
      '/v1/tokens',
    )
    two!.child.kill('SIGKILL')
    expect(res.status).toBe(201)
    const requestId = res.headers.get('x-request-id')!
    const created = (await res.json()) as { id: string }
    await two!.exited

    const token = await app!.db.selectFrom('api_tokens').select('id').where('id', '=', created.id).executeTakeFirst()
    expect(token).toBeDefined()
    const record = await app!.db.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).executeTakeFirst()
    expect(record).toMatchObject({
      account_id: account.accountId,
      token_id: account.tokenId,
      operation: 'tokens.create',
      method: 'POST',
      path: '/v1/tokens',
      status: 201,
    })
  }, 120_000)
})
