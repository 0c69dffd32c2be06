// Hosted sites: GET of a published page by Host header at 32 connections on real PostgreSQL, beside
// a bare Fastify server sending the same bytes and headers and, where Debian's nginx is installed
// (/usr/sbin/nginx; the bench installs nothing), nginx with one worker serving the same file, all
// in the same run. Targets by server CPU per request: >= 0.9x bare Fastify, >= 1.0x nginx. Node's
// HTTP server alone with the same bytes is measured too, and set beside nginx. Also:
// how long the service takes to build a 50-page site (target: under 1 s). And counting visitors
// (DESIGN.md 18): the same page asked by 1,000 visitors (addresses, browsers, referrers and UTM
// links in turn), once from the service and once from a second instance of it on the same
// database with VISITOR_STATS=false; target by server CPU per request: counted >= 0.97x not counted.
// BENCH_ROUNDS rounds (default 3) measure every target in turn; each figure is the median round.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { get as httpGet } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { queueBuild } from '../../src/domain/sites/builds.ts'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { newId } from '../../src/infra/crypto.ts'
import { openDataStore } from '../../src/infra/db.ts'
import { englishPages } from '../../test/fixtures/hosted/content.ts'
import type autocannon from 'autocannon'
import {
  compared,
  cpuCompared,
  load,
  median,
  report,
  runtimeFlags,
  startBaseline,
  startService,
  warm,
  type LoadResult,
  type Running,
} from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const HOST = 'bakery.bench'
const PAGES = 50

/** 50 pages of the fixture bakery (its three pages repeated under other paths), written as the REST API would. */
async function seed(databaseUrl: string): Promise<{ siteId: string; stop(): Promise<void> }> {
  const store = await openDataStore({ databaseUrl, dataDir: tmpdir(), log: pino({ level: 'silent' }) })
  const accountId = newId('acct')
  await store.db.insertInto('accounts').values({ id: accountId, plan: 'pro' }).execute()
  const site = await createSite(store.db, { name: 'Hansen Bakery', accountId, hostname: HOST, locales: ['en'], defaultLocale: 'en' })
  const [home, ...rest] = englishPages(new Date())
  const pages = [
    home!,
    ...Array.from({ length: PAGES - 1 }, (_, i) => ({
      ...rest[i % rest.length]!,
      path: `${rest[i % rest.length]!.path}-${i}`,
      title: `${rest[i % rest.length]!.title} ${i}`,
    })),
  ]
  for (const p of pages) {
    const page = await createPage(store.db, site, { path: p.path, locale: 'en', title: p.title, description: p.description })
    for (const block of p.blocks) await insertBlock(store.db, page.id, { type: block.type, content: block.content })
  }
  return { siteId: site.id, stop: () => store.close() }
}

/** Queues a build as POST /v1/sites/{id}/rebuild does; answers the job's own duration (started to finished) in ms. */
async function timeBuild(databaseUrl: string, siteId: string): Promise<number> {
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

/** GET / with the site's Host header (fetch may not set Host), as autocannon sends it: no Accept-Encoding. */
function getByHost(base: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${base}/`, { headers: { host: HOST } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
  })
}

function port(): number {
  return 20_000 + Math.floor(Math.random() * 20_000)
}

async function startPageServer(capture: string, kind: 'fastify' | 'node'): Promise<Running> {
  const p = port()
  const child = spawn(
    process.execPath,
    [...runtimeFlags, fileURLToPath(new URL('./sites-page-server.ts', import.meta.url)), String(p), capture, kind],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const url = `http://127.0.0.1:${p}`
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${url}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url, pid: child.pid!, stop: async () => void (child.kill('SIGTERM'), await once(child, 'exit')) }
}

const NGINX = '/usr/sbin/nginx'

/**
 * nginx with one worker serving the page file with the same headers, when Debian's nginx is
 * installed; like the service, it logs each request (to /dev/null, where the service's lines go).
 */
async function startNginx(dir: string, body: Buffer, headers: Record<string, string>): Promise<Running | undefined> {
  if (!existsSync(NGINX)) return undefined
  const p = port()
  writeFileSync(join(dir, 'index.html'), body)
  const skip = new Set(['content-type', 'content-length', 'etag', 'date', 'connection', 'keep-alive', 'last-modified'])
  const added = Object.entries(headers)
    .filter(([name]) => !skip.has(name))
    .map(([name, value]) => `      add_header ${name} '${value.replaceAll("'", "\\'")}' always;`)
    .join('\n')
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;\ndaemon off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents { worker_connections 1024; }\nhttp {\n  access_log /dev/null combined;\n  default_type 'text/html; charset=utf-8';\n  types {}\n  server {\n    listen 127.0.0.1:${p};\n    root ${dir};\n    location / {\n      try_files /index.html =404;\n${added}\n    }\n  }\n}\n`,
  )
  const child = spawn(NGINX, ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${p}`
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${url}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  // The master forks the one worker; the worker does the serving, so its CPU is what is measured.
  const worker = spawnSync('pgrep', ['-P', String(child.pid)])
    .stdout.toString()
    .trim()
    .split('\n')[0]
  return { url, pid: Number(worker) || child.pid!, stop: async () => void (child.kill('SIGQUIT'), await once(child, 'exit')) }
}

const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
]
const REFERRERS = [
  'https://www.google.com/',
  'https://duckduckgo.com/',
  'https://www.bing.com/search?q=bakery',
  'https://news.example/bakeries',
]
/**
 * The same page as 1,000 visitors ask for it: an address and a browser each (so each is a visitor
 * of the day), a third from a search engine or a link, a fifth by a campaign link.
 */
const VISITS: autocannon.Request[] = Array.from({ length: 1000 }, (_, i) => ({
  method: 'GET',
  path: i % 5 === 0 ? `/?utm_source=newsletter&utm_medium=email&utm_campaign=week-${i % 7}` : '/',
  headers: {
    host: HOST,
    'x-forwarded-for': `198.51.${i >> 8}.${i & 255}`,
    'user-agent': AGENTS[i % AGENTS.length]!,
    ...(i % 3 === 0 ? { referer: REFERRERS[i % REFERRERS.length]! } : {}),
  },
}))

// Both instances share the database (and so the data key); only the second leaves counting off.
const shared = {
  BASE_URL: 'http://service.bench',
  JOB_CONCURRENCY: '2',
  TRUST_PROXY: 'true',
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
}
const service = await startService(shared)
const dir = mkdtempSync(join(tmpdir(), 'wps-sites-bench-'))
// nginx's worker runs as an unprivileged user and must read the page.
chmodSync(dir, 0o755)
const others: Running[] = []
try {
  const { siteId, stop } = await seed(service.databaseUrl)
  await stop()
  const buildMs: number[] = []
  for (let i = 0; i < 3; i++) buildMs.push(await timeBuild(service.databaseUrl, siteId))
  // Serving learns of the release by NOTIFY; wait until the domain answers.
  let page = await getByHost(service.url)
  for (let i = 0; i < 100 && page.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    page = await getByHost(service.url)
  }
  if (page.status !== 200) throw new Error(`the published page answers ${page.status}`)
  const { body } = page
  const headers = Object.fromEntries(
    Object.entries(page.headers).filter(
      ([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name),
    ),
  ) as Record<string, string>
  const capture = join(dir, 'page.json')
  writeFileSync(capture, JSON.stringify({ headers, body: body.toString('base64') }))
  const hello = await startBaseline()
  others.push(hello)
  const bare = await startPageServer(capture, 'fastify')
  others.push(bare)
  const floor = await startPageServer(capture, 'node')
  others.push(floor)
  const nginx = await startNginx(dir, body, headers)
  if (nginx) others.push(nginx)
  const uncounted = await startService({ ...shared, VISITOR_STATS: 'false' }, { databaseUrl: service.databaseUrl })
  others.push(uncounted)
  for (let i = 0; i < 100 && (await getByHost(uncounted.url)).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 50))

  const targets = [
    { name: 'bare Fastify hello-world', url: `${hello.url}/`, pid: hello.pid, headers: {} as Record<string, string> },
    { name: 'bare Fastify, same bytes + headers', url: `${bare.url}/`, pid: bare.pid, headers: {} as Record<string, string> },
    { name: 'node:http alone, same bytes + headers', url: `${floor.url}/`, pid: floor.pid, headers: {} as Record<string, string> },
    ...(nginx ? [{ name: 'nginx, 1 worker, same file', url: `${nginx.url}/`, pid: nginx.pid, headers: {} }] : []),
    { name: 'the page, 1,000 visitors, counted', url: `${service.url}/`, pid: service.pid, headers: {}, requests: VISITS },
    { name: 'the page, 1,000 visitors, counting off', url: `${uncounted.url}/`, pid: uncounted.pid, headers: {}, requests: VISITS },
    { name: 'GET / by Host (published page)', url: `${service.url}/`, pid: service.pid, headers: { host: HOST } },
  ] as Array<{ name: string; url: string; pid: number; headers: Record<string, string>; requests?: autocannon.Request[] }>
  for (const target of targets) await warm({ url: target.url, connections, headers: target.headers, requests: target.requests })
  const runs = targets.map((): LoadResult[] => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries())
      runs[i]!.push(await load({ url: target.url, connections, pid: target.pid, headers: target.headers, requests: target.requests }))
  }
  const counting = targets.findIndex((target) => target.name.endsWith(', counted'))
  const medians = runs.map(median)
  report(
    `hosted sites (${connections} connections, loopback, PostgreSQL, ${body.length}-byte page, median of ${rounds} rounds)`,
    medians[0]!,
    targets.slice(1).map((target, i) => ({ name: target.name, result: medians[i + 1]! })),
  )
  const [, sameRuns, floorRuns, ...restRuns] = runs
  const [countedRuns, uncountedRuns] = [runs[counting]!, runs[counting + 1]!]
  console.log('')
  console.log(compared('published page by Host vs bare Fastify', runs.at(-1)!, sameRuns!, { by: 'cpu', atLeast: 0.9 }))
  console.log(
    nginx
      ? compared('published page by Host vs nginx, 1 worker', runs.at(-1)!, restRuns[0]!, { by: 'cpu', atLeast: 1.0 })
      : `nginx not installed (${NGINX}): no nginx figure`,
  )
  // What any server built on node:http can reach: its HTTP machinery alone, beside nginx.
  if (nginx) {
    const floorCpu = cpuCompared(floorRuns!, restRuns[0]!)
    console.log(
      `  the floor: node:http alone vs nginx, ${floorCpu.ratio.toFixed(2)}x by CPU (${floorCpu.ours.toFixed(0)} / ${floorCpu.reference.toFixed(0)} µs per request); by round ${floorCpu.perRound}`,
    )
  }
  console.log(compared('the page with counting vs the same page not counted', countedRuns, uncountedRuns, { by: 'cpu', atLeast: 0.97 }))
  console.log(`${PAGES}-page site builds in ${buildMs.map((ms) => `${ms} ms`).join(', ')} (target under 1000 ms)`)
} finally {
  for (const other of others) await other.stop()
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
