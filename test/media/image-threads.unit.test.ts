import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'pool-priority-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// A fresh process: its threads are only those the service's code started.
const child = `
import { readdirSync, readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import { processImage } from './src/domain/media/images.ts'
const processed = await processImage(readFileSync(process.env.PHOTO))
const threads = readdirSync('/proc/self/task').map((task) => ({
  name: readFileSync('/proc/self/task/' + task + '/comm', 'utf8').trim(),
  nice: getPriority(Number(task)),
  main: Number(task) === process.pid,
}))
console.log(JSON.stringify({ variants: processed.variants.length, threads }))
`

describe.runIf(process.platform === 'linux')('image processing beside the event loop', () => {
  it('computes pixels on libvips threads below the event loop’s priority; libuv’s pool keeps the event loop’s', async () => {
    const photo = join(dir, 'photo.jpg')
    writeFileSync(
      photo,
      await sharp({ create: { width: 1400, height: 900, channels: 3, background: '#c84' } })
        .jpeg()
        .toBuffer(),
    )
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', child], {
      cwd: root,
      env: { ...process.env, PHOTO: photo },
    })
    const { variants, threads } = JSON.parse(stdout) as { variants: number; threads: Array<{ name: string; nice: number; main: boolean }> }
    expect(variants).toBe(10) // 320 to 1280 and its own 1400, in WebP and JPEG
    const niceOf = (name: string) => threads.filter((t) => t.name === name).map((t) => t.nice)
    expect(threads.find((t) => t.main)?.nice).toBe(0)
    expect(niceOf('libvips worker').length).toBeGreaterThan(0)
    expect(new Set(niceOf('libvips worker'))).toEqual(new Set([10]))
    // The pool reads files, looks up names and hashes passwords for requests: it keeps its priority, as V8's helpers do.
    expect(niceOf('libuv-worker').length).toBeGreaterThan(0)
    expect(new Set([...niceOf('libuv-worker'), ...niceOf('V8Worker')])).toEqual(new Set([0]))
  })
})
