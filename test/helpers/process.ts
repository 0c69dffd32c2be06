import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { cleanUpAfter } from './cleanup.ts'
import { TEST_DATA_KEY } from './app.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

export interface ServerProcess {
  child: ChildProcess
  /** Known once the process logged where it listens (see waitUntilReady). */
  url: string
  output: () => string
  exited: Promise<number | null>
}

/**
 * How long a test that starts processes of its own may take: each loads the service's modules
 * and opens its database, which takes ten seconds and more on a busy 2-core machine.
 */
export const PROCESS_TIMEOUT_MS = 90_000

/**
 * The environment a child process starts from: not the test runner's (vitest sets BASE_URL='/'),
 * but with Node's compile cache (vitest.config.ts), so the suite's few hundred processes compile
 * the service's modules once.
 */
export function baseEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...(cache && { NODE_COMPILE_CACHE: cache }) }
}

const run = promisify(execFile)

/** The operator's CLI, `npm run admin -- …`, as a process of its own on `env` (the database); its exit code and output, failed or not. */
export async function runAdmin(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/admin.ts', ...args], {
      cwd: root,
      env: { ...baseEnv(), DATA_ENCRYPTION_KEY: TEST_DATA_KEY, ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** What `npm start` runs after `exec node`: its V8 flags and src/server.ts. */
const startArgs = (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start
  .replace(/^exec /, '')
  .split(' ')
  .slice(1)

/** Starts the server as `npm start` does, as a real process on a free port; killed after the test file. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, startArgs, {
    cwd: root,
    env: { ...baseEnv(), NODE_ENV: 'test', LOG_LEVEL: 'info', DATA_ENCRYPTION_KEY: TEST_DATA_KEY, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  cleanUpAfter(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  return { child, url: '', output: () => text, exited }
}

/**
 * Waits for the process's /api/ready. A server on an empty in-memory database migrates everything
 * before it listens: more than 30 s once on a loaded 2-core machine, so a minute, inside the
 * process tests' 90 s.
 */
export async function waitUntilReady(server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited (${server.child.exitCode}):\n${server.output()}`)
    server.url ||= /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1] ?? ''
    if (!server.url) {
      await new Promise((r) => setTimeout(r, 50))
      continue
    }
    const ok = await fetch(`${server.url}/api/ready`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`server not ready in time:\n${server.output()}`)
}
