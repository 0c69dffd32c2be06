// What the benches of hosted serving share: the fixture bakery published on the service, a GET by
// Host as autocannon sends it, the captured-answer references (bare Fastify and node:http alone,
// sites-page-server.ts) and Debian's nginx with one worker serving the same bytes, when installed.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, writeFileSync } from 'node:fs'
import { get as httpGet } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { queueBuild } from '../../src/domain/sites/builds.ts'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createSite, type Site } from '../../src/domain/sites/sites.ts'
import { newId } from '../../src/infra/crypto.ts'
import { openDataStore, type Db } from '../../src/infra/db.ts'
import { englishPages } from '../../test/fixtures/hosted/content.ts'
import { compared, cpuCompared, profiled, runtimeFlags, type LoadResult, type Running } from './lib.ts'

export const HOST = 'bakery.bench'

/** `pages` pages of the fixture bakery (its three pages repeated under other paths) on `site`, written as the REST API would. */
export async function addBakeryPages(db: Db, site: Site, pages: number): Promise<void> {
  const [home, ...rest] = englishPages(new Date())
  const all = [
    home!,
    ...Array.from({ length: pages - 1 }, (_, i) => ({
      ...rest[i % rest.length]!,
      path: `${rest[i % rest.length]!.path}-${i}`,
      title: `${rest[i % rest.length]!.title} ${i}`,
    })),
  ]
  for (const p of all) {
    const page = await createPage(db, site, { path: p.path, locale: 'en', title: p.title, description: p.description })
    for (const block of p.blocks) await insertBlock(db, page.id, { type: block.type, content: block.content })
  }
}

/** The fixture bakery of `pages` pages on HOST, in a new pro account or in `accountId`'s. */
export async function seedBakery(
  databaseUrl: string,
  pages: number,
  accountId?: string,
): Promise<{ siteId: string; stop(): Promise<void> }> {
  const store = await openDataStore({ databaseUrl, dataDir: tmpdir(), log: pino({ level: 'silent' }) })
  const owner = accountId ?? newId('acct')
  if (!accountId) await store.db.insertInto('accounts').values({ id: owner, plan: 'pro' }).execute()
  const site = await createSite(store.db, { name: 'Hansen Bakery', accountId: owner, hostname: HOST, locales: ['en'], defaultLocale: 'en' })
  await addBakeryPages(store.db, site, pages)
  return { siteId: site.id, stop: () => store.close() }
}

/** Queues a build as POST /v1/sites/{id}/rebuild does; answers the job's own duration (started to finished) in ms. */
export async function timeBuild(databaseUrl: string, siteId: string): Promise<number> {
  const store = await openDataStore({ databaseUrl, dataDir: tmpdir(), log: pino({ level: 'silent' }) })
  try {
    const { build } = await queueBuild(store.db, siteId)
    for (;;) {
      const row = await store.db.selectFrom('builds').selectAll().where('id', '=', build.id).executeTakeFirstOrThrow()
      if (row.status === 'failed') throw new Error(`build failed: ${row.error}`)
      if (row.status === 'succeeded') return row.finished_at!.getTime() - row.started_at!.getTime()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    await store.close()
  }
}

export interface Captured {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** GET `path` with the site's Host header (fetch may not set Host), as autocannon sends it: no Accept-Encoding. */
export function getByHost(base: string, path = '/'): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${base}${path}`, { headers: { host: HOST } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
  })
}

/** The published page, once serving has learnt of the release (by NOTIFY): waits until the domain answers it. */
export async function publishedPage(base: string, path = '/'): Promise<Captured> {
  let page = await getByHost(base, path)
  for (let i = 0; i < 100 && page.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    page = await getByHost(base, path)
  }
  if (page.status !== 200) throw new Error(`the published ${path} answers ${page.status}`)
  return page
}

/** An answer's headers a reference repeats: all but those of the connection and the moment. */
export function repeatedHeaders(captured: Captured): Record<string, string> {
  return Object.fromEntries(
    Object.entries(captured.headers).filter(
      ([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name),
    ),
  ) as Record<string, string>
}

function port(): number {
  return 20_000 + Math.floor(Math.random() * 20_000)
}

async function answering(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${url}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * A reference answering every GET with the captured answer (`capture`, a JSON file of headers and
 * base64 body): `fastify`, a bare Fastify route, or `node`, Node's HTTP server alone (the floor);
 * with `busyMicros`, the node server first spends that much CPU on each request.
 */
export async function startCapturedServer(capture: string, kind: 'fastify' | 'node', busyMicros = 0): Promise<Running> {
  const p = port()
  const child = spawn(
    process.execPath,
    [
      ...runtimeFlags,
      ...profiled(`page-${kind}`),
      fileURLToPath(new URL('./sites-page-server.ts', import.meta.url)),
      String(p),
      capture,
      kind,
      String(busyMicros),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const url = `http://127.0.0.1:${p}`
  await answering(url)
  return { url, pid: child.pid!, stop: async () => void (child.kill('SIGTERM'), await once(child, 'exit')) }
}

/** Writes the captured answer where startCapturedServer reads it. */
export function writeCapture(file: string, captured: Captured): void {
  writeFileSync(file, JSON.stringify({ headers: repeatedHeaders(captured), body: captured.body.toString('base64') }))
}

export const NGINX = '/usr/sbin/nginx'

/**
 * nginx with one worker serving the captured body as a file with the same headers, when Debian's
 * nginx is installed (the bench installs nothing); like the service, it logs each request (to
 * /dev/null, where the service's lines go). `dir` must be readable by nginx's unprivileged worker.
 */
export async function startNginx(dir: string, captured: Captured): Promise<Running | undefined> {
  if (!existsSync(NGINX)) return undefined
  const p = port()
  const headers = repeatedHeaders(captured)
  writeFileSync(join(dir, 'answer'), captured.body)
  // nginx writes its own type, length, ETag and Last-Modified for a file.
  const skip = new Set(['content-type', 'content-length', 'etag', 'date', 'connection', 'keep-alive', 'last-modified'])
  const added = Object.entries(headers)
    .filter(([name]) => !skip.has(name))
    .map(([name, value]) => `      add_header ${name} '${value.replaceAll("'", "\\'")}' always;`)
    .join('\n')
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;\ndaemon off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents { worker_connections 1024; }\nhttp {\n  access_log /dev/null combined;\n  default_type '${headers['content-type']}';\n  types {}\n  server {\n    listen 127.0.0.1:${p};\n    root ${dir};\n    location / {\n      try_files /answer =404;\n${added}\n    }\n  }\n}\n`,
  )
  const child = spawn(NGINX, ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${p}`
  await answering(url)
  // The master forks the one worker; the worker does the serving, so its CPU is what is measured.
  const worker = spawnSync('pgrep', ['-P', String(child.pid)])
    .stdout.toString()
    .trim()
    .split('\n')[0]
  return { url, pid: Number(worker) || child.pid!, stop: async () => void (child.kill('SIGQUIT'), await once(child, 'exit')) }
}

/**
 * A hosted answer beside nginx, against its two targets: at least nginx's throughput, and by
 * server CPU per request at least 0.9x as efficient as node:http alone sending the same bytes (the
 * floor of any server built on it); the floor's own distance to nginx is printed beside them.
 */
export function besideNginx(
  name: string,
  ours: LoadResult[],
  floor: LoadResult[],
  nginx: LoadResult[] | undefined,
  busyFloor?: { micros: number; runs: LoadResult[] },
): string[] {
  const lines = [compared(`${name} vs node:http alone (the floor)`, ours, floor, { by: 'cpu', atLeast: 0.9 })]
  // What the bound asks of any server doing a little more than the floor: the floor itself with a
  // few microseconds of work a request, measured beside it.
  if (busyFloor) {
    const busy = cpuCompared(busyFloor.runs, floor)
    lines.push(
      `  the floor with ${busyFloor.micros} µs of work a request: ${busy.ratio.toFixed(2)}x the floor by CPU (${busy.ours.toFixed(1)} / ${busy.reference.toFixed(1)} µs per request); by round ${busy.perRound}`,
    )
  }
  if (!nginx) return [...lines, `nginx not installed (${NGINX}): no nginx figure for ${name}`]
  const floorCpu = cpuCompared(floor, nginx)
  return [
    ...lines,
    compared(`${name} vs nginx, 1 worker`, ours, nginx, { by: 'throughput', atLeast: 1.0 }),
    `  the floor: node:http alone vs nginx, ${floorCpu.ratio.toFixed(2)}x by CPU (${floorCpu.ours.toFixed(0)} / ${floorCpu.reference.toFixed(0)} µs per request); by round ${floorCpu.perRound}`,
  ]
}
