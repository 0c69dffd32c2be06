// Hosted sites: GET of a published page by Host header at 32 connections on real PostgreSQL, beside
// a bare Fastify server sending the same bytes and headers, Node's HTTP server alone sending them
// (the floor), the floor again spending 4 µs of CPU on each request, and, where Debian's nginx is
// installed (/usr/sbin/nginx; the bench installs nothing), nginx with one worker serving the same
// file, all in the same run. Targets: >= 0.9x bare Fastify by server CPU per request; >= 1.0x
// nginx by throughput and >= 0.9x the floor by CPU. Also: how long the service takes to build a
// 50-page site (target: under 1 s). And counting visitors
// (DESIGN.md 18): the same page asked by 1,000 visitors (addresses, browsers, referrers and UTM
// links in turn) and by 1,000 crawlers with the same addresses, referrers and links, which the
// service answers alike and does not count, of one instance started for it on the service's
// database; target by server CPU per request: counted >= 0.97x not counted.
// BENCH_ROUNDS rounds (default 3) measure every target side by side, in slices taking turns
// (measureSideBySide); each figure is the median round. wrk (Debian's, where installed) drives the
// servers sending the page: autocannon decodes every 12 kB body into a string and so capped them all
// near its own rate; it drives the counting runs, which rotate their requests.
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type autocannon from 'autocannon'
import {
  besideNginx,
  getByHost,
  HOST,
  publishedPage,
  seedBakery,
  startCapturedServer,
  startNginx,
  timeBuild,
  writeCapture,
} from './hosted.ts'
import { compared, type LoadOptions, measureSideBySide, median, report, startBaseline, startService, type Running } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const PAGES = 50
/**
 * The floor is measured a second time doing this much work a request of its own: about what the
 * page's access line and request id cost it (docs/decisions.md, "fifteenth pass"), the least of the
 * page's own work any answer must keep.
 */
const FLOOR_WORK_MICROS = 4

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
/** Crawlers' user agents of about the browsers' length: isbot knows them, so their page views are not counted. */
const CRAWLERS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot) Safari/537.36',
  'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131',
]
/**
 * The same page as 1,000 visitors ask for it: an address and a browser each (so each is a visitor
 * of the day), a third from a search engine or a link, a fifth by a campaign link. With `agents`
 * of crawlers, the same requests that are answered alike and not counted.
 */
const visits = (agents: readonly string[]): autocannon.Request[] =>
  Array.from({ length: 1000 }, (_, i) => ({
    method: 'GET',
    path: i % 5 === 0 ? `/?utm_source=newsletter&utm_medium=email&utm_campaign=week-${i % 7}` : '/',
    headers: {
      host: HOST,
      'x-forwarded-for': `198.51.${i >> 8}.${i & 255}`,
      'user-agent': agents[i % agents.length]!,
      ...(i % 3 === 0 ? { referer: REFERRERS[i % REFERRERS.length]! } : {}),
    },
  }))

// The counting instance shares the database (and so the data key).
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
  const { siteId, stop } = await seedBakery(service.databaseUrl, PAGES)
  await stop()
  const buildMs: number[] = []
  for (let i = 0; i < 3; i++) buildMs.push(await timeBuild(service.databaseUrl, siteId))
  const page = await publishedPage(service.url)
  const { body } = page
  const capture = join(dir, 'page.json')
  writeCapture(capture, page)
  const hello = await startBaseline()
  others.push(hello)
  const bare = await startCapturedServer(capture, 'fastify')
  others.push(bare)
  const floor = await startCapturedServer(capture, 'node')
  others.push(floor)
  const busyFloor = await startCapturedServer(capture, 'node', FLOOR_WORK_MICROS)
  others.push(busyFloor)
  const nginx = await startNginx(dir, page)
  if (nginx) others.push(nginx)
  // Counting is measured on an instance started for it, so it does not carry the other phases' work
  // (the builds, the page by Host) in its heap or its CPU; counted and not counted on the same
  // instance, because two instances started alike differ by up to a tenth in CPU per request here.
  const counting = await startService(shared, { databaseUrl: service.databaseUrl })
  others.push(counting)
  for (let i = 0; i < 100 && (await getByHost(counting.url)).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 50))

  // A 12 kB page: wrk, where autocannon's decoding of the bodies would take a core's worth of the
  // machine's two; the counting runs rotate their requests, which only autocannon does.
  const at = (url: string, pid: number, headers: Record<string, string> = {}, requests?: autocannon.Request[]): LoadOptions => ({
    url,
    pid,
    connections,
    headers,
    ...(requests ? { requests } : { client: 'wrk' as const }),
  })
  const targets: Array<[string, LoadOptions]> = [
    ['bare Fastify hello-world', at(`${hello.url}/`, hello.pid)],
    ['bare Fastify, same bytes + headers', at(`${bare.url}/`, bare.pid)],
    ['node:http alone, same bytes + headers', at(`${floor.url}/`, floor.pid)],
    [`node:http alone + ${FLOOR_WORK_MICROS} µs of work a request`, at(`${busyFloor.url}/`, busyFloor.pid)],
    ...(nginx ? [['nginx, 1 worker, same file', at(`${nginx.url}/`, nginx.pid)] as [string, LoadOptions]] : []),
    ['the page, 1,000 visitors, counted', at(`${counting.url}/`, counting.pid, {}, visits(AGENTS))],
    ['the page, 1,000 crawlers, not counted', at(`${counting.url}/`, counting.pid, {}, visits(CRAWLERS))],
    ['GET / by Host (published page)', at(`${service.url}/`, service.pid, { host: HOST })],
  ]
  const measured = await measureSideBySide(Object.fromEntries(targets), rounds)
  const runs = targets.map(([name]) => measured[name]!)
  const countedAt = targets.findIndex(([name]) => name.endsWith(', counted'))
  const medians = runs.map(median)
  report(
    `hosted sites (${connections} connections, loopback, PostgreSQL, ${body.length}-byte page, median of ${rounds} rounds)`,
    medians[0]!,
    targets.slice(1).map(([name], i) => ({ name, result: medians[i + 1]! })),
  )
  const [, sameRuns, floorRuns, busyFloorRuns, ...restRuns] = runs
  const [countedRuns, uncountedRuns] = [runs[countedAt]!, runs[countedAt + 1]!]
  console.log('')
  console.log(compared('published page by Host vs bare Fastify', runs.at(-1)!, sameRuns!, { by: 'cpu', atLeast: 0.9 }))
  const busy = { micros: FLOOR_WORK_MICROS, runs: busyFloorRuns! }
  for (const line of besideNginx('published page by Host', runs.at(-1)!, floorRuns!, nginx ? restRuns[0]! : undefined, busy))
    console.log(line)
  console.log(compared('the page with counting vs the same page not counted', countedRuns, uncountedRuns, { by: 'cpu', atLeast: 0.97 }))
  console.log(`${PAGES}-page site builds in ${buildMs.map((ms) => `${ms} ms`).join(', ')} (target under 1000 ms)`)
} finally {
  for (const other of others) await other.stop()
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
