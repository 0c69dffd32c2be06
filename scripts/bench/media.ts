// The media library on real PostgreSQL, every figure beside its reference in the same run, medians
// of BENCH_ROUNDS rounds (default 3) measured in turn (the servers of (3) side by side, in slices
// taking turns: measureSideBySide):
// (1) a 12-megapixel JPEG uploaded end to end (POST /v1/media, raw bytes: checks, processing into
//     every variant, storage, audit) against sharp alone making the same variants from the same
//     file in this process (target <= 1.25x);
// (2) a published page by Host while two uploads run, against the same page with none (target:
//     p99 < 50 ms);
// (3) one variant at /_media/ on the site's host (where its pages show it) beside a bare Fastify
//     server sending the same bytes and headers (target >= 0.9x by CPU), Node's HTTP server alone
//     sending them (the floor: >= 0.9x of its CPU efficiency) and, where Debian's nginx is
//     installed (the bench installs nothing), nginx with one worker serving the same file (>= 1.0x
//     its throughput). The same variant on the service's own host is printed beside them.
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { variantWidths } from '../../src/domain/media/images.ts'
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
import { benchAccountToken, compared, load, measureSideBySide, median, middle, report, startService, type Running } from './lib.ts'

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)

/** A 4000 × 3000 photo-like JPEG (noise over a gradient compresses like a photo does), a different one per seed. */
async function twelveMegapixels(seed: number): Promise<Buffer> {
  const width = 4000
  const height = 3000
  const pixels = Buffer.alloc(width * height * 3)
  let state = 2463534242 + seed
  for (let i = 0; i < pixels.length; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    pixels[i] = ((i / 3) % width) / 16 + ((state >>> 0) % 48)
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer()
}

/** The reference: sharp alone, one decode cloned into every variant, WebP and JPEG at the same widths and settings. */
async function sharpAlone(file: Buffer): Promise<number> {
  const started = performance.now()
  const base = sharp(file).rotate()
  const { width } = await sharp(file).metadata()
  await Promise.all(
    variantWidths(width!).flatMap((w) => [
      base.clone().resize({ width: w }).webp({ quality: 80, effort: 2 }).toBuffer(),
      base.clone().resize({ width: w }).jpeg({ quality: 82, progressive: true }).toBuffer(),
    ]),
  )
  return performance.now() - started
}

const dataKey = randomBytes(32).toString('base64')
const service = await startService({ DATA_ENCRYPTION_KEY: dataKey, BASE_URL: 'http://service.bench', JOB_CONCURRENCY: '2' })
const dir = mkdtempSync(join(tmpdir(), 'bench-media-'))
// nginx's worker runs as an unprivileged user and must read the file.
chmodSync(dir, 0o755)
const others: Running[] = []
try {
  const { accountId, token } = await benchAccountToken(service.databaseUrl, dataKey, 'write:pages,read:sites')
  const headers = { authorization: `Bearer ${token}` }
  const { siteId, stop } = await seedBakery(service.databaseUrl, 5, accountId)
  await stop()
  await timeBuild(service.databaseUrl, siteId)
  await publishedPage(service.url)

  /** POST /v1/media of `file`; answers the new item's id and the path of its 960-wide WebP. */
  const upload = async (file: Buffer, name: string): Promise<{ id: string; path: string }> => {
    const res = await fetch(`${service.url}/v1/media?filename=${name}.jpg`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'image/jpeg' },
      body: new Uint8Array(file),
    })
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`)
    const media = (await res.json()) as { id: string; variants: Array<{ url: string; width: number; format: string }> }
    return { id: media.id, path: new URL(media.variants.find((v) => v.width === 960 && v.format === 'webp')!.url).pathname }
  }
  const remove = async (id: string) => {
    const res = await fetch(`${service.url}/v1/media/${id}`, { method: 'DELETE', headers })
    if (res.status !== 204) throw new Error(`delete answered ${res.status}: ${await res.text()}`)
  }

  // 1. Upload end to end against sharp alone, in turn, each round a new photo (the same bytes would be found stored).
  const files = await Promise.all(Array.from({ length: rounds + 3 }, (_, i) => twelveMegapixels(i)))
  await sharpAlone(files[0]!)
  const uploads: number[] = []
  const references: number[] = []
  let mediaPath = ''
  for (let i = 1; i <= rounds; i++) {
    const file = files[i]!
    references.push(await sharpAlone(file))
    const started = performance.now()
    mediaPath = (await upload(file, `photo-${i}`)).path
    uploads.push(performance.now() - started)
  }
  const uploaded = middle(uploads)
  const reference = middle(references)
  console.log(`12-megapixel JPEG (${(files[1]!.length / 1e6).toFixed(1)} MB) into 12 variants, median of ${rounds}:`)
  console.log(`  upload end to end   ${uploaded.toFixed(0)} ms`)
  console.log(`  sharp alone         ${reference.toFixed(0)} ms`)
  console.log(
    `12-megapixel upload vs sharp alone: ${(uploaded / reference).toFixed(2)}x (by round ${uploads.map((u, i) => (u / references[i]!).toFixed(2)).join(', ')}); target <= 1.25x: ${uploaded / reference <= 1.25 ? 'met' : 'NOT met'}`,
  )

  // 2. Pages by Host with none and with two uploads running (each a photo uploaded and removed
  // again, over and over, so every upload is processed), in turn.
  const page = { url: `${service.url}/`, pid: service.pid, connections, durationSeconds: seconds, headers: { host: HOST } }
  let uploadsMeanwhile = 0
  const twoUploads = async <T>(work: () => Promise<T>): Promise<T> => {
    let done = false
    let count = 0
    const loop = async (file: Buffer, name: string) => {
      while (!done) {
        await remove((await upload(file, name)).id)
        count++
      }
    }
    const loops = [loop(files.at(-2)!, 'busy-a'), loop(files.at(-1)!, 'busy-b')]
    // Both processings under way before the pages are measured.
    await new Promise((resolve) => setTimeout(resolve, 300))
    try {
      return await work()
    } finally {
      done = true
      await Promise.all(loops)
      uploadsMeanwhile += count
    }
  }
  const quiet: Awaited<ReturnType<typeof load>>[] = []
  const busy: Awaited<ReturnType<typeof load>>[] = []
  await load({ ...page, durationSeconds: 2 })
  for (let i = 0; i < rounds; i++) {
    quiet.push(await load(page))
    busy.push(await twoUploads(() => load(page)))
  }
  const q = median(quiet)
  const b = median(busy)
  console.log(`\npublished page by Host, ${connections} connections, median of ${rounds} × ${seconds} s:`)
  console.log(`  no upload           ${q.requestsPerSecond.toFixed(0)} req/s, p50 ${q.p50} ms, p99 ${q.p99} ms, non-2xx ${q.non2xx}`)
  console.log(
    `  two uploads running ${b.requestsPerSecond.toFixed(0)} req/s, p50 ${b.p50} ms, p99 ${b.p99} ms, non-2xx ${b.non2xx} (${uploadsMeanwhile} uploads finished)`,
  )
  console.log(
    `pages by Host while two uploads run: p99 ${b.p99} ms (${q.p99} ms with none); target p99 < 50 ms: ${b.p99 < 50 ? 'met' : 'NOT met'}`,
  )

  // 3. Serving a variant on the site's host beside the references sending the same bytes and headers.
  const variant = await getByHost(service.url, mediaPath)
  if (variant.status !== 200) throw new Error(`${mediaPath} on ${HOST} answered ${variant.status}`)
  const capture = join(dir, 'variant.json')
  writeCapture(capture, variant)
  const bare = await startCapturedServer(capture, 'fastify')
  others.push(bare)
  const floor = await startCapturedServer(capture, 'node')
  others.push(floor)
  const nginx = await startNginx(dir, variant)
  if (nginx) others.push(nginx)
  const at = (url: string, pid: number, extra: Record<string, string> = {}) => ({
    url,
    pid,
    connections,
    durationSeconds: seconds,
    headers: extra,
    // 40 KiB answers: autocannon itself would be the limit.
    client: 'wrk' as const,
  })
  const results = await measureSideBySide(
    {
      bare: at(`${bare.url}${mediaPath}`, bare.pid),
      floor: at(`${floor.url}${mediaPath}`, floor.pid),
      ...(nginx ? { nginx: at(`${nginx.url}${mediaPath}`, nginx.pid) } : {}),
      own: at(`${service.url}${mediaPath}`, service.pid, { host: 'service.bench' }),
      site: at(`${service.url}${mediaPath}`, service.pid, { host: HOST }),
    } as Record<'bare' | 'floor' | 'nginx' | 'own' | 'site', Parameters<typeof load>[0]>,
    rounds,
    // Slices of a second: wrk runs whole seconds.
    seconds,
  )
  report(
    `serving a ${(variant.body.length / 1024).toFixed(0)} KiB WebP variant (${connections} connections, median of ${rounds} × ${seconds} s)`,
    median(results.bare),
    [
      { name: 'node:http alone, same bytes + headers', result: median(results.floor) },
      ...(nginx ? [{ name: 'nginx, 1 worker, same file', result: median(results.nginx) }] : []),
      { name: '/_media/ on the service host', result: median(results.own) },
      { name: '/_media/ by Host (the site)', result: median(results.site) },
    ],
    'bare Fastify, same bytes + headers',
  )
  console.log('')
  console.log(compared('media variant by Host vs bare Fastify', results.site, results.bare, { by: 'cpu', atLeast: 0.9 }))
  for (const line of besideNginx('media variant by Host', results.site, results.floor, nginx ? results.nginx : undefined)) console.log(line)
} finally {
  for (const other of others) await other.stop()
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
