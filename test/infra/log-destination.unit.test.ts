import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { BatchedDestination } from '../../src/infra/log-destination.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'

/** A destination writing to a fresh file, and a reader of what reached the file so far. */
function fileDestination(options: { batchLength?: number; flushEveryMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wps-log-'))
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'out.log')
  const fd = openSync(path, 'w')
  const destination = new BatchedDestination({ fd, ...options })
  return { destination, written: () => readFileSync(path, 'utf8'), close: () => closeSync(fd) }
}

describe('the production log destination', () => {
  it('holds lines until a batch is full, then writes the whole batch in order', () => {
    const { destination, written } = fileDestination({ batchLength: 100, flushEveryMs: 60_000 })
    destination.write('a'.repeat(40) + '\n')
    destination.write('b'.repeat(40) + '\n')
    expect(written()).toBe('')
    destination.write('c'.repeat(40) + '\n')
    expect(written()).toBe(`${'a'.repeat(40)}\n${'b'.repeat(40)}\n${'c'.repeat(40)}\n`)
    destination.write('d\n')
    expect(written()).toHaveLength(123)
    destination.flushSync()
    expect(written().endsWith('c\nd\n')).toBe(true)
    destination.end()
  })

  it('writes what is pending at least every flushEveryMs on its own', async () => {
    const { destination, written } = fileDestination({ flushEveryMs: 20 })
    destination.write('quiet instance\n')
    expect(written()).toBe('')
    const deadline = Date.now() + 2000
    while (written() === '' && Date.now() < deadline) await sleep(10)
    expect(written()).toBe('quiet instance\n')
    destination.end()
  })

  it("serves pino: every line, the multi-byte ones whole, after logger.flush's callback", async () => {
    const { destination, written } = fileDestination({ flushEveryMs: 60_000 })
    const log = pino({ base: null, timestamp: false }, destination)
    for (let i = 0; i < 200; i++) log.info({ i, name: 'Café Zoë 🍰' }, 'line')
    // 4 KiB batches have been written; the rest waits for the flush.
    const before = written().split('\n').filter(Boolean).length
    expect(before).toBeGreaterThan(0)
    expect(before).toBeLessThan(200)
    await new Promise<void>((resolve, reject) => log.flush((error) => (error ? reject(error) : resolve())))
    const lines = written()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { i: number; name: string; msg: string })
    expect(lines.map((line) => line.i)).toEqual([...Array(200).keys()])
    expect(lines.every((line) => line.name === 'Café Zoë 🍰' && line.msg === 'line')).toBe(true)
    destination.end()
  })

  it('writes what is pending when it ends, and the timer no longer runs', async () => {
    const { destination, written } = fileDestination({ flushEveryMs: 10 })
    destination.write('last words\n')
    destination.end()
    expect(written()).toBe('last words\n')
    await sleep(30)
    expect(written()).toBe('last words\n')
  })
})
