/** Refused because the queue is full; `retryAfterSeconds` estimates when a place frees up. */
export class QueueFullError extends Error {
  readonly retryAfterSeconds: number
  constructor(retryAfterSeconds: number) {
    super('The check queue is full')
    this.name = 'QueueFullError'
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/**
 * Runs tasks `concurrency` at a time and keeps at most `maxWaiting` more waiting; beyond that it
 * refuses at once instead of letting requests pile up behind long Lighthouse runs.
 */
export class RunQueue {
  readonly #concurrency: number
  readonly #maxWaiting: number
  readonly #waiting: Array<() => void> = []
  #running = 0
  /** Moving average of a task's duration, for Retry-After. */
  #averageMs: number

  constructor(options: { concurrency: number; maxWaiting: number; expectedMs: number }) {
    this.#concurrency = options.concurrency
    this.#maxWaiting = options.maxWaiting
    this.#averageMs = options.expectedMs
  }

  get running(): number {
    return this.#running
  }

  get waiting(): number {
    return this.#waiting.length
  }

  /** Seconds until a new task would probably start. */
  retryAfterSeconds(): number {
    const ahead = this.#running + this.#waiting.length
    return Math.max(1, Math.ceil((ahead * this.#averageMs) / this.#concurrency / 1000))
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrency) {
      if (this.#waiting.length >= this.#maxWaiting) throw new QueueFullError(this.retryAfterSeconds())
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    }
    this.#running++
    const started = performance.now()
    try {
      return await task()
    } finally {
      this.#averageMs = 0.7 * this.#averageMs + 0.3 * (performance.now() - started)
      this.#running--
      this.#waiting.shift()?.()
    }
  }
}
