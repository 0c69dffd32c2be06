import { describe, expect, it } from 'vitest'
import { ProcessingGate } from '../../src/domain/media/gate.ts'

// At most one processing per core at once; past the longest wait, 503 media_busy with Retry-After.
describe('the processing gate', () => {
  it('runs as many at once as it has slots, the rest in turn, and refuses when the wait would be too long', async () => {
    const gate = new ProcessingGate({ slots: 2, maxWaitMs: 2500 })
    let running = 0
    let most = 0
    const work = () =>
      gate.run(async () => {
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 50))
        running--
        return 'done'
      })
    // Eight at once: two run, six wait (an expected wait of up to 3 × the 1 s first guess, so the last is refused).
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, work))
    expect(most).toBe(2)
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(6)
    expect(refused).toHaveLength(2)
    expect(refused[0]).toMatchObject({ code: 'MEDIA_BUSY', statusCode: 503, headers: { 'retry-after': '3' } })
    // Once the queue is empty, work is taken again at once.
    expect(await work()).toBe('done')
  })
})
