import { execFile } from 'node:child_process'
import { request } from 'node:http'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { TEST_DATA_KEY } from './helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from './helpers/database.ts'
import { baseEnv, startServerProcess, waitUntilReady } from './helpers/process.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

describe('the server process', () => {
  it('refuses to start on a bad configuration, naming the variable', async () => {
    const server = await startServerProcess({ PORT: 'eighty', DATABASE_URL: 'memory://' })
    expect(await server.exited).toBe(78)
    expect(server.output()).toMatch(/PORT: must be integer/)
  })

  it('shuts down gracefully on SIGTERM: the request in flight completes, then the process exits 0', async () => {
    const server = await startServerProcess({ DATABASE_URL: await freshDatabaseUrl() })
    await waitUntilReady(server)
    // A request whose body is still arriving is in flight: the signal must not cut it off.
    const { port } = new URL(server.url)
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/pricing', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      req.on('error', reject)
      req.write('{"partial":')
      setTimeout(() => server.child.kill('SIGTERM'), 200)
      setTimeout(() => req.end('true}'), 600)
    })
    const { status, body } = await response
    expect(status).toBe(404)
    expect(JSON.parse(body)).toMatchObject({ code: 'not_found' })
    expect(await server.exited).toBe(0)
    expect(server.output()).toContain('shutting down')
    // Stopped listening: a new connection is refused.
    await expect(fetch(`${server.url}/api/pricing`)).rejects.toThrow()
  })

  it.runIf(onPostgres)('lets two processes start at once on one empty database; both migrate safely and serve', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const [a, b] = await Promise.all([startServerProcess({ DATABASE_URL: databaseUrl }), startServerProcess({ DATABASE_URL: databaseUrl })])
    await Promise.all([waitUntilReady(a!), waitUntilReady(b!)])
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    const { rows } = await client.query('select name from kysely_migration')
    const keys = await client.query('select kid from signing_keys')
    await client.end()
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length)
    expect(keys.rows).toHaveLength(1)
    a!.child.kill('SIGTERM')
    b!.child.kill('SIGTERM')
    expect(await a!.exited).toBe(0)
    expect(await b!.exited).toBe(0)
  })

  it.runIf(onPostgres)('npm run migrate applies the migrations and exits 0; a broken database URL exits non-zero', async () => {
    const databaseUrl = await freshDatabaseUrl()
    const env = { ...baseEnv(), DATABASE_URL: databaseUrl, DATA_ENCRYPTION_KEY: TEST_DATA_KEY }
    const { stdout } = await run(process.execPath, ['scripts/migrate.ts'], { cwd: root, env })
    expect(stdout).toContain('database migrated')
    const again = await run(process.execPath, ['scripts/migrate.ts'], { cwd: root, env })
    expect(again.stdout).toContain('database already current')
    await expect(run(process.execPath, ['scripts/migrate.ts'], { cwd: root, env: { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' } })).rejects.toMatchObject({ code: 1 })
  })
})
