/**
 * Shared harness for the load benchmarks: the service and a bare Fastify hello-world run as child
 * processes on loopback, autocannon drives them from this process, and every figure is printed
 * beside the baseline measured in the same run.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'

const root = fileURLToPath(new URL('../..', import.meta.url))
export const benchDatabaseAdminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export interface Running {
  url: string
  pid: number
  stop(): Promise<void>
}

/**
 * CPU time (user + system) a process has used so far, in microseconds, from /proc. Dividing the
 * CPU spent during a run by the requests served gives a cost per request that does not depend on
 * how busy the rest of the machine was; null where /proc is not available.
 */
export function cpuMicros(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return (ticks * 1_000_000) / CLOCK_TICKS
  } catch {
    return null
  }
}
const CLOCK_TICKS = 100

function freePort(): number {
  return 20_000 + Math.floor(Math.random() * 20_000)
}

async function waitFor(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before answering ${url}`)
    try {
      const res = await fetch(url)
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`)
}

/**
 * Spawns a server on a random port and waits until `path` answers. A port some other process took
 * meanwhile (the server exits at once) is tried again with another, twice at most.
 */
async function spawnServer(spawnAt: (port: number) => ChildProcess, path: string): Promise<{ child: ChildProcess; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = freePort()
    const child = spawnAt(port)
    const url = `http://127.0.0.1:${port}`
    try {
      await waitFor(`${url}${path}`, child)
      return { child, url }
    } catch (error) {
      if (attempt >= 3 || child.exitCode === null) throw error
    }
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  child.kill('SIGTERM')
  await once(child, 'exit')
}

/** A fresh database on the benchmark's PostgreSQL server, dropped by the returned function. */
export async function freshBenchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `wps_bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: benchDatabaseAdminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(benchDatabaseAdminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: benchDatabaseAdminUrl })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

/**
 * The service's arguments as `npm start` gives them, V8 flags included (the Dockerfile starts it
 * the same way), so the benchmarks measure the process production runs.
 */
const startArgs = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .replace(/^exec /, '')
  .split(' ')
  .slice(1)
/** Those V8 flags alone: every reference server runs with them too, so runtimes compare like for like. */
export const runtimeFlags = startArgs.filter((arg) => arg.startsWith('--'))

/**
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the service, and of the references (the bare
 * servers and those doing the same work), to that folder when each stops (files named by what
 * they profile), so a bench's costs can be set side by side.
 */
export function profiled(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : []
}

/**
 * Starts the real service (src/server.ts) on real PostgreSQL with production-like settings:
 * helmet, rate limiting and logging on. Rate limits are scaled up so the load itself is measured,
 * not refused; log lines go to /dev/null as they would to a collector. On a fresh database, dropped
 * when it stops, unless `databaseUrl` names the database of an instance already running.
 */
export async function startService(
  env: Record<string, string> = {},
  options: { databaseUrl?: string } = {},
): Promise<Running & { databaseUrl: string }> {
  // A second instance on another's database (options.databaseUrl) leaves dropping it to the first.
  const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await freshBenchDatabase()
  const profile = profiled('service')
  const dataKey = randomBytes(32).toString('base64')
  const started = spawnServer(
    (port) =>
      spawn(process.execPath, [...profile, ...startArgs], {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: 'production',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: database.url,
          DATA_ENCRYPTION_KEY: dataKey,
          LOG_LEVEL: 'info',
          RATE_LIMIT_FACTOR: '1000000',
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    '/api/ready',
  ).catch(async (error: unknown) => {
    await database.drop()
    throw error
  })
  const { child, url } = await started
  return {
    url,
    pid: child.pid!,
    databaseUrl: database.url,
    async stop() {
      await stopChild(child)
      await database.drop()
    },
  }
}

/** The bare Fastify hello-world every figure is compared with (or, with 'pricing', the same body and headers as /api/pricing; with 'db', one round trip to `databaseUrl` per request). */
/**
 * A max account with an hourly budget no bench reaches and an API token of `scopes`, made with the
 * admin CLI on the running service's database, as an operator would.
 */
export async function benchAccountToken(
  databaseUrl: string,
  dataKey: string,
  scopes: string,
): Promise<{ accountId: string; token: string }> {
  const admin = async (...args: string[]) => {
    const env = { ...process.env, DATABASE_URL: databaseUrl, DATA_ENCRYPTION_KEY: dataKey, NODE_ENV: 'production' }
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/admin.ts', ...args, '--json'], { cwd: root, env })
    return JSON.parse(stdout) as Record<string, string>
  }
  const account = await admin('account', 'create', '--email', 'bench@example.com', '--plan', 'max')
  await admin('account', 'set-quota', account['id']!, '100000000')
  const { token } = await admin('token', 'create', account['id']!, '--scopes', scopes, '--name', 'bench')
  return { accountId: account['id']!, token: token! }
}

export async function startBaseline(mode: 'hello' | 'pricing' | 'db' = 'hello', databaseUrl = ''): Promise<Running> {
  const { child, url } = await spawnServer(
    (port) =>
      spawn(
        process.execPath,
        [
          ...runtimeFlags,
          ...profiled(`baseline-${mode}`),
          fileURLToPath(new URL('./baseline-server.ts', import.meta.url)),
          String(port),
          mode,
          databaseUrl,
        ],
        { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
      ),
    '/',
  )
  return { url, pid: child.pid!, stop: () => stopChild(child) }
}

/**
 * A bare Fastify server doing the database work of one route and sending the same bytes and
 * headers (same-work-server.ts): `sites`, `patch` or `turn`, with that mode's settings.
 */
export async function startSameWork(
  mode: 'sites' | 'patch' | 'turn',
  databaseUrl: string,
  settings: Record<string, unknown> & { headers: Record<string, string> },
): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'wps-same-work-'))
  const file = join(dir, 'settings.json')
  writeFileSync(file, JSON.stringify(settings))
  const { child, url } = await spawnServer(
    (port) =>
      spawn(
        process.execPath,
        [
          ...runtimeFlags,
          ...profiled(`same-work-${mode}`),
          fileURLToPath(new URL('./same-work-server.ts', import.meta.url)),
          String(port),
          mode,
          databaseUrl,
          file,
        ],
        { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
      ),
    '/ready',
  )
  return {
    url: `${url}/`,
    pid: child.pid!,
    async stop() {
      await stopChild(child)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The headers of an answer a reference server repeats: all but those of the connection and the moment. */
export function repeatableHeaders(headers: Headers | Record<string, string | string[] | undefined>): Record<string, string> {
  const entries =
    headers instanceof Headers
      ? [...headers.entries()]
      : Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')] as const)
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'])
  return Object.fromEntries(entries.filter(([name]) => !skip.has(name.toLowerCase())))
}

export interface LoadOptions {
  url: string
  /** The server process, to measure its CPU time per request. */
  pid?: number
  connections?: number
  durationSeconds?: number
  method?: string
  headers?: Record<string, string>
  body?: string
  /** Rotating requests (autocannon `requests`), e.g. a different turn per request. */
  requests?: autocannon.Request[]
  /**
   * The load generator: autocannon, or wrk for answers of tens of kilobytes, where autocannon (which
   * decodes every body into a string) becomes the limit (1,600 answers/s of 40 KiB here, wrk 34,000).
   * GET with fixed headers only; without wrk installed (WRK) autocannon runs and says so.
   */
  client?: 'autocannon' | 'wrk'
}

/** Debian's wrk (`apt-get install wrk`): the bench installs nothing. */
export const WRK = '/usr/bin/wrk'
const wrkInstalled = existsSync(WRK)
let wrkMissingSaid = false

export interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  total: number
  /** How long the run took, in seconds. */
  seconds: number
  /** Server CPU time per request in microseconds, when the server's pid was given. */
  cpuPerRequest?: number | null
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.client === 'wrk') {
    if (wrkInstalled) return loadWithWrk(options)
    if (!wrkMissingSaid)
      console.log(`wrk not installed (${WRK}): autocannon measures instead, and its own decoding of large bodies may be the limit`)
    wrkMissingSaid = true
  }
  const cpuBefore = options.pid ? cpuMicros(options.pid) : null
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 32,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10),
    method: (options.method ?? 'GET') as autocannon.Request['method'],
    headers: options.headers,
    body: options.body,
    requests: options.requests,
  })
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
    seconds: result.duration,
    cpuPerRequest: cpuBefore !== null && options.pid ? (cpuMicros(options.pid)! - cpuBefore) / Math.max(1, result.requests.total) : null,
  }
}

/** One run of wrk (one thread, the other core left to the server) with its figures read from its report. */
async function loadWithWrk(options: LoadOptions): Promise<LoadResult> {
  if (options.requests || (options.method ?? 'GET') !== 'GET' || options.body) throw new Error('wrk runs a GET with fixed headers only')
  const seconds = Math.max(1, Math.round(options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10)))
  // wrk adds its own Host unless it is given one spelt `Host` (two would reach the server).
  const headers = Object.entries(options.headers ?? {}).flatMap(([name, value]) => [
    '-H',
    `${name.toLowerCase() === 'host' ? 'Host' : name}: ${value}`,
  ])
  const cpuBefore = options.pid ? cpuMicros(options.pid) : null
  const { stdout } = await promisify(execFile)(WRK, [
    '-t1',
    `-c${options.connections ?? 32}`,
    `-d${seconds}s`,
    '--latency',
    ...headers,
    options.url,
  ])
  const cpuAfter = options.pid ? cpuMicros(options.pid) : null
  const toMs = (value: string | undefined, unit: string | undefined) =>
    Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 }[unit as 'us' | 'ms' | 's' | 'm'] ?? Number.NaN)
  const [, total, took, tookUnit] = /(\d+) requests in ([\d.]+)(us|ms|s|m)\b/.exec(stdout) ?? []
  if (!total) throw new Error(`wrk reported no requests:\n${stdout}`)
  const ms = (percent: string) => {
    const [, value, unit] = new RegExp(`\\s${percent}%\\s+([\\d.]+)(us|ms|s|m)\\b`).exec(stdout) ?? []
    return toMs(value, unit)
  }
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
  const requests = Number(total)
  const runSeconds = toMs(took, tookUnit) / 1000
  return {
    requestsPerSecond: requests / runSeconds,
    p50: Math.round(ms('50')),
    p99: Math.round(ms('99')),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    total: requests,
    seconds: runSeconds,
    cpuPerRequest: cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / Math.max(1, requests) : null,
  }
}

/** The result with the median req/s of several runs of one target. */
export function median(results: LoadResult[]): LoadResult {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

/** The middle value of a list of numbers (the upper one of an even count's two). */
export function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/**
 * Warms every target, then measures them in turn for `rounds` rounds, so a busy moment of a shared
 * machine falls on all of them alike. Answers each target's results in round order.
 */
export function measureInTurn<K extends string>(targets: Record<K, LoadOptions>, rounds: number): Promise<Record<K, LoadResult[]>> {
  return measureSideBySide(targets, rounds, 1)
}

/**
 * Like measureInTurn, but side by side: each round runs every target in `slices` slices of its
 * duration, taking turns (every other slice in the opposite order, so no target always follows the
 * same one), and adds up each target's requests, time and server CPU over its slices. This machine
 * changes speed from one second to the next: ten seconds of one target and then ten of another can
 * fall on a slow moment and a fast one, which moved the ratio of two servers by a tenth or more
 * between rounds; slices in turn put every target on the same moments. Latency is each slice's
 * median p50 and highest p99.
 */
export async function measureSideBySide<K extends string>(
  targets: Record<K, LoadOptions>,
  rounds: number,
  slices = Number(process.env.BENCH_SLICES ?? 4),
): Promise<Record<K, LoadResult[]>> {
  const names = Object.keys(targets) as K[]
  for (const name of names) await warm(targets[name])
  const results = Object.fromEntries(names.map((name) => [name, [] as LoadResult[]])) as Record<K, LoadResult[]>
  for (let round = 0; round < rounds; round++) {
    const parts = Object.fromEntries(names.map((name) => [name, [] as LoadResult[]])) as Record<K, LoadResult[]>
    for (let slice = 0; slice < slices; slice++) {
      for (const name of slice % 2 === 0 ? names : names.toReversed()) {
        const target = targets[name]
        const seconds = (target.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10)) / slices
        parts[name].push(await load({ ...target, durationSeconds: seconds }))
      }
    }
    for (const name of names) results[name].push(summed(parts[name]))
  }
  return results
}

/** One result of several runs of a target: their requests, time and CPU added up. */
function summed(parts: LoadResult[]): LoadResult {
  if (parts.length === 1) return parts[0]!
  const total = parts.reduce((sum, r) => sum + r.total, 0)
  const seconds = parts.reduce((sum, r) => sum + r.seconds, 0)
  const cpu = parts.every((r) => r.cpuPerRequest != null) ? parts.reduce((sum, r) => sum + r.cpuPerRequest! * r.total, 0) : null
  return {
    requestsPerSecond: total / seconds,
    p50: middle(parts.map((r) => r.p50)),
    p99: Math.max(...parts.map((r) => r.p99)),
    non2xx: parts.reduce((sum, r) => sum + r.non2xx, 0),
    errors: parts.reduce((sum, r) => sum + r.errors, 0),
    total,
    seconds,
    cpuPerRequest: cpu === null ? null : cpu / Math.max(1, total),
  }
}

/**
 * Server CPU per request of two targets measured in the same rounds: each one's median, and the
 * ratio (reference / ours, so higher is better) of the medians and of each round.
 */
export function cpuCompared(
  ours: LoadResult[],
  reference: LoadResult[],
): { ours: number; reference: number; ratio: number; perRound: string } {
  const cpu = (results: LoadResult[]) => middle(results.map((r) => r.cpuPerRequest ?? NaN))
  const perRound = ours.map((r, i) => ((reference[i]!.cpuPerRequest ?? NaN) / (r.cpuPerRequest ?? NaN)).toFixed(2)).join(', ')
  return { ours: cpu(ours), reference: cpu(reference), ratio: cpu(reference) / cpu(ours), perRound }
}

/**
 * One comparison with its reference, measured in the same rounds: the ratio of the medians by
 * throughput and by server CPU per request (reference CPU / ours, so higher is better for both),
 * the per-round ratios, and whether `target` holds for the chosen measure.
 */
export function compared(
  name: string,
  ours: LoadResult[],
  reference: LoadResult[],
  target: { by: 'throughput' | 'cpu'; atLeast: number; p99Below?: number },
): string {
  const byThroughput = median(ours).requestsPerSecond / median(reference).requestsPerSecond
  const { ours: cpuOurs, reference: cpuReference, ratio: byCpu, perRound: cpuRounds } = cpuCompared(ours, reference)
  const ratio = target.by === 'throughput' ? byThroughput : byCpu
  const perRound =
    target.by === 'throughput'
      ? ours.map((r, i) => (r.requestsPerSecond / reference[i]!.requestsPerSecond).toFixed(2)).join(', ')
      : cpuRounds
  const p99 = median(ours).p99
  const p99Met = target.p99Below === undefined || p99 < target.p99Below
  const met = ratio >= target.atLeast && p99Met
  return (
    `${name}: ${byThroughput.toFixed(2)}x the reference's req/s (${median(ours).requestsPerSecond.toFixed(0)} / ${median(reference).requestsPerSecond.toFixed(0)}), ` +
    `${byCpu.toFixed(2)}x by CPU (${cpuOurs.toFixed(0)} / ${cpuReference.toFixed(0)} µs per request); by round ${perRound}; ` +
    `target ${target.by === 'throughput' ? 'req/s' : 'CPU'} >= ${target.atLeast.toFixed(2)}x${target.p99Below === undefined ? '' : `, p99 ${p99} ms < ${target.p99Below} ms`}: ${met ? 'met' : 'NOT met'}`
  )
}

/** Warms a target up briefly so JIT and pools are hot before the measured run. */
export async function warm(options: LoadOptions): Promise<void> {
  await load({ ...options, durationSeconds: 2 })
}

export function report(
  title: string,
  baseline: LoadResult,
  rows: Array<{ name: string; result: LoadResult; unit?: string }>,
  baselineName = 'bare Fastify hello-world (baseline)',
): void {
  const cpu = (r: LoadResult) =>
    r.cpuPerRequest == null
      ? ''
      : `  cpu ${r.cpuPerRequest.toFixed(1).padStart(6)} µs/req (ratio ${baseline.cpuPerRequest ? (baseline.cpuPerRequest / r.cpuPerRequest).toFixed(2) : '-'})`
  const line = (name: string, r: LoadResult, unit = 'req/s') =>
    `${name.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(8)} ${unit.padEnd(8)} p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  ratio ${(r.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}${cpu(r)}  non-2xx ${r.non2xx}  errors ${r.errors}`
  console.log(`\n${title}`)
  console.log(line(baselineName, baseline))
  for (const row of rows) console.log(line(row.name, row.result, row.unit))
}
