import type { FastifyBaseLogger } from 'fastify'
import { touchApiTokens } from '../domain/accounts/api-tokens.ts'
import type { Db } from '../infra/db.ts'

/** Last-used times are written every few seconds for all tokens at once, never on the request path. */
const TOUCH_EVERY_MS = 5000
/** A token seen used this recently is not recorded again. */
const TOUCH_RESOLUTION_MS = 60_000

/** When each API token was last used, kept to the minute and written in batches. */
export class LastUsedRecorder {
  readonly #db: Db
  readonly #log: FastifyBaseLogger
  #pending = new Map<string, Date>()
  readonly #timer: NodeJS.Timeout

  constructor(db: Db, log: FastifyBaseLogger) {
    this.#db = db
    this.#log = log
    this.#timer = setInterval(() => void this.flush(), TOUCH_EVERY_MS).unref()
  }

  used(tokenId: string, lastUsedAt: Date | null, now = new Date()): void {
    if (!lastUsedAt || now.getTime() - lastUsedAt.getTime() > TOUCH_RESOLUTION_MS) this.#pending.set(tokenId, now)
  }

  async flush(): Promise<void> {
    if (!this.#pending.size) return
    const batch = this.#pending
    this.#pending = new Map()
    await touchApiTokens(this.#db, batch).catch((error: unknown) => this.#log.warn({ err: error }, 'token last-used times not recorded'))
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }
}
