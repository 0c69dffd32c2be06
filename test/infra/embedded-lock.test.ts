import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { TEST_DATA_KEY } from '../helpers/app.ts'
import { migratedDataDir, onPostgres } from '../helpers/database.ts'
import { baseEnv, startServerProcess, waitUntilReady } from '../helpers/process.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

/** Runs a script of the project as its own process on the embedded database in `dataDir`. */
async function script(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...baseEnv(), DATA_ENCRYPTION_KEY: TEST_DATA_KEY, DATA_DIR: dataDir }
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root, env })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

// The embedded database alone: one project is enough, and PostgreSQL has no such limit.
describe.runIf(!onPostgres)('the embedded database is opened by one process at a time', () => {
  it('refuses the admin CLI, the outbox and a second server beside a running server, and takes over the lock of one that crashed', {
    timeout: 240_000,
  }, async () => {
    const dataDir = await migratedDataDir('wps-lock-')
    const server = await startServerProcess({ DATA_DIR: dataDir })
    await waitUntilReady(server, 120_000)
    const pid = server.child.pid!

    const admin = await script(dataDir, 'scripts/admin.ts', 'account', 'create', '--email', 'lost@example.com', '--plan', 'pro')
    expect(admin.code).toBe(1)
    expect(admin.stderr).toContain(`the embedded database in ${dataDir} is in use by process ${pid} (server.ts`)
    expect(admin.stderr).toContain('Stop that process first, or use PostgreSQL (DATABASE_URL)')
    expect(admin.stderr).not.toMatch(/\n\s+at /)

    const outbox = await script(dataDir, 'scripts/outbox.ts')
    expect(outbox.code).toBe(1)
    expect(outbox.stderr).toContain(`is in use by process ${pid}`)

    const second = await startServerProcess({ DATA_DIR: dataDir })
    expect(await second.exited).toBe(1)
    expect(second.output()).toContain(`is in use by process ${pid}`)

    // The first server still serves, on data nobody else wrote.
    expect((await fetch(`${server.url}/api/ready`)).status).toBe(200)

    // A crash leaves the lock file behind; its process no longer runs, so the next one takes it.
    server.child.kill('SIGKILL')
    await server.exited
    expect(existsSync(join(dataDir, 'embedded.lock'))).toBe(true)
    const after = await script(dataDir, 'scripts/admin.ts', 'account', 'create', '--email', 'kept@example.com', '--plan', 'pro', '--json')
    expect(after.code, after.stderr).toBe(0)
    expect(JSON.parse(after.stdout)).toMatchObject({ email: 'kept@example.com', plan: 'pro' })
    const list = await script(dataDir, 'scripts/admin.ts', 'account', 'list', '--json')
    expect((JSON.parse(list.stdout) as Array<{ email: string }>).map((a) => a.email)).toEqual(['kept@example.com'])
    // Each command gave the lock back when it ended.
    expect(existsSync(join(dataDir, 'embedded.lock'))).toBe(false)
  })
})
