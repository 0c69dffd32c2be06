import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { createMailer } from '../src/infra/mailer.ts'
import { buildTestApp, TEST_DATA_KEY, testConfig } from './helpers/app.ts'
import { freshDatabaseUrl, migratedDataDir, onPostgres } from './helpers/database.ts'
import { baseEnv, PROCESS_TIMEOUT_MS, startServerProcess, waitUntilReady } from './helpers/process.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const shared = await buildTestApp()

describe('the server process', { timeout: PROCESS_TIMEOUT_MS }, () => {
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
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/pricing',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let body = ''
          res.on('data', (d: Buffer) => (body += d.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        },
      )
      req.on('error', reject)
      req.write('{"partial":')
      // Once a request sent after this one's head is answered, the server has read that head (a fixed
      // pause was not enough on a loaded machine): the signal then finds the request in flight.
      req.on('socket', (socket) =>
        socket.once('connect', () => {
          fetch(`${server.url}/api/pricing`)
            .then((probe) => probe.arrayBuffer())
            .then(() => {
              server.child.kill('SIGTERM')
              setTimeout(() => req.end('true}'), 400)
            }, reject)
        }),
      )
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
    const databaseUrl = await freshDatabaseUrl({ empty: true })
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
    const databaseUrl = await freshDatabaseUrl({ empty: true })
    const env = { ...baseEnv(), DATABASE_URL: databaseUrl, DATA_ENCRYPTION_KEY: TEST_DATA_KEY }
    const { stdout } = await run(process.execPath, ['scripts/migrate.ts'], { cwd: root, env })
    expect(stdout).toContain('database migrated')
    const again = await run(process.execPath, ['scripts/migrate.ts'], { cwd: root, env })
    expect(again.stdout).toContain('database already current')
    await expect(
      run(process.execPath, ['scripts/migrate.ts'], {
        cwd: root,
        env: { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' },
      }),
    ).rejects.toMatchObject({ code: 1 })
  })
})

// The fault: a second start with another DATA_ENCRYPTION_KEY (compose made a new one on each run)
// failed with a plain-text error and exit 1, so the container restarted in a loop.
describe('a data key that opens nothing already stored', { timeout: PROCESS_TIMEOUT_MS }, () => {
  it('is a configuration error (exit 78) naming DATA_ENCRYPTION_KEYS_PREVIOUS; with the old key kept there, the server starts', async () => {
    // The embedded database needs a directory to persist between the starts; a server keeps its data anyway.
    const storage: Record<string, string> = onPostgres
      ? { DATABASE_URL: await freshDatabaseUrl() }
      : { DATA_DIR: await migratedDataDir('wps-key-') }
    const first = await startServerProcess(storage)
    await waitUntilReady(first, 120_000)
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)

    const otherKey = randomBytes(32).toString('base64')
    const second = await startServerProcess({ ...storage, DATA_ENCRYPTION_KEY: otherKey })
    expect(await second.exited, second.output()).toBe(78)
    expect(second.output()).toMatch(/DATA_ENCRYPTION_KEYS_PREVIOUS/)
    expect(second.output()).not.toMatch(/\n\s+at /)

    const third = await startServerProcess({ ...storage, DATA_ENCRYPTION_KEY: otherKey, DATA_ENCRYPTION_KEYS_PREVIOUS: TEST_DATA_KEY })
    await waitUntilReady(third, 120_000)
    third.child.kill('SIGTERM')
    expect(await third.exited).toBe(0)
  }, 180_000)
})

// The fault: without SMTP a sign-in code could not be read: the log had no code, the outbox is sealed.
describe('mail without SMTP', { timeout: PROCESS_TIMEOUT_MS }, () => {
  const mail = { to: 'ada@example.com', subject: 'Your sign-in code', text: 'Your code is 493817. It expires in 10 minutes.' }

  async function mailerLog(nodeEnv: 'development' | 'test' | 'production') {
    const lines: Array<Record<string, unknown>> = []
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) })
    const config = testConfig({ NODE_ENV: 'test' })
    const mailer = createMailer({ config: { ...config, NODE_ENV: nodeEnv }, db: shared.app.db, keyring: shared.app.keyring, log })
    await mailer.send(mail)
    return lines
  }

  it('in development the log line of a stored mail carries its text (and so the code)', async () => {
    const lines = await mailerLog('development')
    expect(lines.find((l) => l['msg'] === 'mail stored in the outbox (SMTP_URL is not set)')).toMatchObject({ text: mail.text })
    expect(JSON.stringify(lines)).not.toContain(mail.to)
  })

  it('in production it never does, and the start warns that nobody receives codes', async () => {
    const lines = await mailerLog('production')
    expect(JSON.stringify(lines)).not.toContain('493817')
    expect(lines.find((l) => l['level'] === 40)?.['msg']).toMatch(/SMTP_URL is not set/)
    expect(JSON.stringify(await mailerLog('test'))).not.toContain('493817')
  })

  it.runIf(onPostgres)(
    'npm run outbox opens the outbox with the data key and prints the latest mails',
    async () => {
      await shared.app.mailer.send({ ...mail, to: 'grace@example.com', text: 'Your code is 111222.' })
      const env = { ...baseEnv(), DATABASE_URL: shared.databaseUrl, DATA_ENCRYPTION_KEY: TEST_DATA_KEY }
      const { stdout } = await run(process.execPath, ['scripts/outbox.ts'], { cwd: root, env })
      expect(stdout).toContain('To: grace@example.com')
      expect(stdout).toContain('Your code is 111222.')
      const onlyAda = await run(process.execPath, ['scripts/outbox.ts', '1', 'ada@example.com'], { cwd: root, env })
      expect(onlyAda.stdout).toContain('To: ada@example.com')
      expect(onlyAda.stdout).not.toContain('grace@')
      // Another key opens nothing: a clear message, not a stack.
      const wrongKey = await run(process.execPath, ['scripts/outbox.ts'], {
        cwd: root,
        env: { ...env, DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      }).catch((error: { code: number; stderr: string }) => error)
      expect(wrongKey).toMatchObject({ code: 1 })
      expect((wrongKey as { stderr: string }).stderr).toMatch(/no data key/)
    },
    120_000,
  )
})
