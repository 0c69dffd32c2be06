import { describe, expect, it } from 'vitest'
import { QueueFullError, RunQueue } from '../../../src/public/audits/mcs/queue.ts'
import { toMcsResult, type LighthouseReport } from '../../../src/public/audits/mcs/result.ts'

const report = (categories: Record<string, number | null>): LighthouseReport => ({
  lighthouse_version: '13.5.0',
  final_url: 'https://example.com/',
  categories,
  audits: {
    'cumulative-layout-shift': { numericValue: 0.12345, score: 0.8 },
    'largest-contentful-paint': { numericValue: 2500.6, score: 0.9 },
  },
})

describe('MCS blend', () => {
  const now = new Date('2026-11-22T10:00:00Z')

  it('weighs the classic categories 35/25/20/20', () => {
    const result = toMcsResult('example.com', 'psi', report({ performance: 1, seo: 0, accessibility: 0, 'best-practices': 0 }), now, 1000)
    expect(result.mcs).toBe(35)
    expect(result.categories.agentic_browsing).toBeNull()
    expect(result.metrics).toMatchObject({
      cumulative_layout_shift: 0.123,
      largest_contentful_paint_ms: 2501,
      total_blocking_time_ms: null,
    })
    expect(result.expires_at).toBe('2026-11-22T10:00:01.000Z')
  })

  it('gives agentic browsing 15 % where Lighthouse has it', () => {
    const result = toMcsResult(
      'example.com',
      'local',
      report({ performance: 0, seo: 0, accessibility: 0, 'best-practices': 0, 'agentic-browsing': 1 }),
      now,
      1000,
    )
    expect(result.mcs).toBe(15)
    expect(result.weights).toEqual({ performance: 0.3, seo: 0.2, accessibility: 0.2, best_practices: 0.15, agentic_browsing: 0.15 })
  })

  it('re-weights over the categories Lighthouse could score', () => {
    // performance unscored: the rest (25 + 20 + 20) carry the blend.
    const result = toMcsResult(
      'example.com',
      'psi',
      report({ performance: null, seo: 1, accessibility: 1, 'best-practices': 0 }),
      now,
      1000,
    )
    expect(result.categories.performance).toBeNull()
    expect(result.mcs).toBe(Math.round((100 * 45) / 65))
  })
})

describe('RunQueue', () => {
  it('runs one at a time, keeps a bounded wait list and refuses beyond it with a retry estimate', async () => {
    const queue = new RunQueue({ concurrency: 1, maxWaiting: 2, expectedMs: 10_000 })
    let running = 0
    let peak = 0
    const release: Array<() => void> = []
    const task = () =>
      new Promise<void>((resolve) => {
        running++
        peak = Math.max(peak, running)
        release.push(() => {
          running--
          resolve()
        })
      })
    const runs = [queue.run(task), queue.run(task), queue.run(task)]
    await expect(queue.run(task)).rejects.toBeInstanceOf(QueueFullError)
    await queue.run(task).catch((error: QueueFullError) => expect(error.retryAfterSeconds).toBe(30))
    expect(queue.running).toBe(1)
    expect(queue.waiting).toBe(2)
    while (release.length || queue.running) {
      await new Promise((r) => setTimeout(r, 1))
      release.shift()?.()
    }
    await Promise.all(runs)
    expect(peak).toBe(1)
    expect(queue.waiting).toBe(0)
  })
})
