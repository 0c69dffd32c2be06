import { describe, expect, it } from 'vitest'
import { spanPieces, TOP_LEVEL } from '../../src/domain/stats/blocks.ts'
import { addDays, spanDays } from '../../src/domain/stats/report.ts'

const DAY_MS = 86_400_000
const numberOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS

/** Every day a span's pieces cover, in order, each as often as it is covered. */
function covered(from: string, to: string, through: string | null): string[] {
  const { days, blocks } = spanPieces(from, to, through)
  const out: string[] = []
  for (const run of days) for (let d = run.from; d <= run.to; d = addDays(d, 1)) out.push(d)
  for (const block of blocks) for (let i = 0; i < 2 ** block.level; i++) out.push(addDays(block.start, i))
  return out.sort()
}

describe('statistics blocks: a span read as blocks of days and the days left over', () => {
  it('reads every day from the daily rows when nothing is rolled up', () => {
    expect(spanPieces('2026-01-01', '2026-03-31', null)).toEqual({ days: [{ from: '2026-01-01', to: '2026-03-31' }], blocks: [] })
  })

  it('covers each day of the span exactly once, with aligned blocks only of days rolled up, at most two of a size', () => {
    let seed = 7
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed % n
    }
    for (let i = 0; i < 500; i++) {
      const from = addDays('2025-06-01', random(400))
      const to = addDays(from, random(400))
      const through = random(5) === 0 ? null : addDays(from, random(450) - 30)
      const expected = Array.from({ length: spanDays(from, to) }, (_, k) => addDays(from, k))
      expect(covered(from, to, through), `${from}..${to} rolled through ${through}`).toEqual(expected)
      const { blocks, days } = spanPieces(from, to, through)
      for (const block of blocks) {
        expect(block.level).toBeGreaterThanOrEqual(1)
        expect(block.level).toBeLessThanOrEqual(TOP_LEVEL)
        expect(numberOf(block.start) % 2 ** block.level).toBe(0)
        expect(addDays(block.start, 2 ** block.level - 1) <= through!).toBe(true)
      }
      for (let level = 1; level <= TOP_LEVEL; level++) expect(blocks.filter((b) => b.level === level).length).toBeLessThanOrEqual(2)
      // Runs of days never touch: two adjacent runs are one.
      for (let k = 1; k < days.length; k++) expect(addDays(days[k - 1]!.to, 1) < days[k]!.from).toBe(true)
    }
  })

  it('reads 90 days of a site rolled up to yesterday as a few blocks and at most a few runs of days', () => {
    const pieces = spanPieces('2026-08-31', '2026-11-28', '2026-11-27')
    expect(pieces.blocks.length).toBeLessThanOrEqual(2 * TOP_LEVEL)
    expect(pieces.days.reduce((sum, run) => sum + spanDays(run.from, run.to), 0)).toBeLessThan(10)
  })
})
