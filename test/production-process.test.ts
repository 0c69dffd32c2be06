import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TEST_DATA_KEY } from './helpers/app.ts'
import { cleanUpAfter } from './helpers/cleanup.ts'
import { freshDatabaseUrl, migratedDataDir, onPostgres } from './helpers/database.ts'
import { baseEnv, startServerProcess } from './helpers/process.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

/** A data directory of its own for an embedded database on disk, removed after the test. */
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wps-prod-'))
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The database of a production process: PostgreSQL, or the embedded one on disk, allowed explicitly. */
async function productionDatabase(): Promise<Record<string, string>> {
  return onPostgres
    ? { DATABASE_URL: await freshDatabaseUrl() }
    : { ALLOW_EMBEDDED_DATABASE: 'true', DATA_DIR: await migratedDataDir('wps-prod-') }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('npm start in production', () => {
  it('hands SIGTERM to the server: the last request lines and "shutting down" reach stdout, npm exits 0 and nothing keeps the port', {
    timeout: 90_000,
  }, async () => {
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: {
        ...baseEnv(),
        NODE_ENV: 'production',
        DATA_ENCRYPTION_KEY: TEST_DATA_KEY,
        HOST: '127.0.0.1',
        PORT: '0',
        ...(await productionDatabase()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    npm.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    npm.stderr.resume()
    const exited = once(npm, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null }))
    cleanUpAfter(() => {
      if (npm.exitCode === null) npm.kill('SIGKILL')
    })
    const lines = () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; pid: number; reqId?: string; signal?: string })

    // Production batches log lines, written at least once a second.
    let url = ''
    for (const deadline = Date.now() + 60_000; !url && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${stdout}`)
      url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? ''
    }
    expect(url, stdout).not.toBe('')
    const pid = lines().find((l) => l.msg.startsWith('Server listening'))!.pid
    expect(pid).not.toBe(npm.pid)
    cleanUpAfter(() => {
      if (alive(pid)) process.kill(pid, 'SIGKILL')
    })

    const ids = ['last-1', 'last-2', 'last-3']
    for (const id of ids) expect((await fetch(`${url}/api/pricing`, { headers: { 'x-request-id': id } })).status).toBe(200)
    npm.kill('SIGTERM')
    expect(await exited).toEqual({ code: 0, signal: null })

    const written = lines()
    for (const id of ids)
      expect(
        written.some((l) => l.msg === 'request' && l.reqId === id),
        id,
      ).toBe(true)
    expect(written.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM', pid })
    expect(alive(pid)).toBe(false)
    await expect(fetch(`${url}/api/ready`)).rejects.toThrow()
  })
})

describe('production without DATABASE_URL', () => {
  it('refuses to start on the embedded database: exit 78 naming DATABASE_URL and the opt-in', async () => {
    const server = await startServerProcess({ NODE_ENV: 'production', DATA_DIR: dataDir() })
    expect(await server.exited).toBe(78)
    expect(server.output()).toContain('DATABASE_URL: is required in production')
    expect(server.output()).toContain('ALLOW_EMBEDDED_DATABASE=true')
  })
})
