// The media library on real PostgreSQL: (1) a 12-megapixel JPEG uploaded end to end (POST
// /v1/media, raw bytes: checks, processing into every variant, storage, audit) against sharp alone
// making the same variants from the same file in this process; (2) serving one variant at
// /_media/ against a bare node:http server sending the same bytes and headers. Medians of
// BENCH_ROUNDS rounds (default 3), printed with their ratios.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { variantWidths } from '../../src/domain/media/images.ts'
import { benchAccountToken, measureInTurn, median, middle, repeatableHeaders, startService } from './lib.ts'

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)

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
const service = await startService({ DATA_ENCRYPTION_KEY: dataKey })
const dir = mkdtempSync(join(tmpdir(), 'bench-media-'))
try {
  const { token } = await benchAccountToken(service.databaseUrl, dataKey, 'write:pages,read:sites')
  const headers = { authorization: `Bearer ${token}` }

  // 1. Upload end to end against sharp alone, in turn, each round a new photo (the same bytes would be found stored).
  const files = await Promise.all(Array.from({ length: rounds + 1 }, (_, i) => twelveMegapixels(i)))
  await sharpAlone(files[0]!)
  const uploads: number[] = []
  const references: number[] = []
  let mediaUrl = ''
  for (let i = 1; i <= rounds; i++) {
    const file = files[i]!
    references.push(await sharpAlone(file))
    const started = performance.now()
    const res = await fetch(`${service.url}/v1/media?filename=photo-${i}.jpg`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'image/jpeg' },
      body: new Uint8Array(file),
    })
    uploads.push(performance.now() - started)
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`)
    const media = (await res.json()) as { variants: Array<{ url: string; width: number; format: string }> }
    mediaUrl = new URL(media.variants.find((v) => v.width === 960 && v.format === 'webp')!.url).pathname
  }
  const upload = middle(uploads)
  const reference = middle(references)
  console.log(`12-megapixel JPEG (${(files[1]!.length / 1e6).toFixed(1)} MB) into 12 variants, median of ${rounds}:`)
  console.log(`  upload end to end   ${upload.toFixed(0)} ms`)
  console.log(`  sharp alone         ${reference.toFixed(0)} ms`)
  console.log(`  ratio               ${(upload / reference).toFixed(2)}x`)

  // 2. Serving a variant against a bare server sending the same bytes and headers.
  const served = await fetch(`${service.url}${mediaUrl}`)
  const bytes = Buffer.from(await served.arrayBuffer())
  writeFileSync(join(dir, 'body'), bytes)
  writeFileSync(join(dir, 'headers.json'), JSON.stringify(repeatableHeaders(served.headers)))
  const server = spawn(
    process.execPath,
    [
      '-e',
      `const http=require('node:http'),fs=require('node:fs');const body=fs.readFileSync(${JSON.stringify(join(dir, 'body'))});const headers=JSON.parse(fs.readFileSync(${JSON.stringify(join(dir, 'headers.json'))}));` +
        `http.createServer((q,s)=>{s.writeHead(200,headers);s.end(body)}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const port = await new Promise<string>((resolve) => server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())))
  try {
    const results = await measureInTurn(
      {
        media: { url: `${service.url}${mediaUrl}`, pid: service.pid, connections: 32, durationSeconds: seconds },
        bare: { url: `http://127.0.0.1:${port}/`, pid: server.pid!, connections: 32, durationSeconds: seconds },
      },
      rounds,
    )
    const m = median(results.media)
    const b = median(results.bare)
    console.log(`serving a ${(bytes.length / 1024).toFixed(0)} KiB WebP variant, 32 connections, median of ${rounds} × ${seconds} s:`)
    console.log(
      `  /_media/   ${m.requestsPerSecond.toFixed(0)} req/s, p99 ${m.p99} ms, ${m.cpuPerRequest?.toFixed(0)} µs CPU a request, non-2xx ${m.non2xx}`,
    )
    console.log(`  bare node  ${b.requestsPerSecond.toFixed(0)} req/s, p99 ${b.p99} ms, ${b.cpuPerRequest?.toFixed(0)} µs CPU a request`)
    console.log(`  ratio      ${(b.requestsPerSecond / m.requestsPerSecond).toFixed(2)}x the bare server's throughput`)
  } finally {
    server.kill()
  }
} finally {
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
