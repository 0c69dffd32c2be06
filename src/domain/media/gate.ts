import { availableParallelism } from 'node:os'
import { errors, withHeaders } from '../../errors.ts'

/**
 * At most one image processing per core runs at once (DESIGN.md 14); the rest wait their turn.
 * When the wait ahead, judged by how long recent processings took, would pass `maxWaitMs`, the
 * upload is refused at once with 503 media_busy and a Retry-After, rather than held open.
 */
export class ProcessingGate {
  readonly slots: number
  readonly maxWaitMs: number
  private running = 0
  private readonly waiting: Array<() => void> = []
  /** A moving average of one processing's time, in milliseconds. */
  private averageMs = 1000

  constructor(options: { slots?: number; maxWaitMs?: number } = {}) {
    this.slots = Math.max(1, options.slots ?? availableParallelism())
    this.maxWaitMs = options.maxWaitMs ?? 10_000
  }

  /** How long a processing asked for now would wait, in milliseconds. */
  expectedWaitMs(): number {
    if (this.running < this.slots) return 0
    return Math.ceil((this.waiting.length + 1) / this.slots) * this.averageMs
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const wait = this.expectedWaitMs()
    if (wait > this.maxWaitMs) {
      const seconds = Math.max(1, Math.ceil(wait / 1000))
      throw withHeaders(new errors.mediaBusy(`Every image processor is busy; send the file again in ${seconds} s`), {
        'retry-after': String(seconds),
      })
    }
    if (this.running >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    const started = performance.now()
    try {
      return await work()
    } finally {
      this.averageMs = this.averageMs * 0.7 + (performance.now() - started) * 0.3
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}

/** The process's gate: every interface's uploads share the cores. */
export const processingGate = new ProcessingGate()
