import type { FastifyInstance } from 'fastify'
import { openEvent, type StoredEvent } from '../domain/webhooks/events.ts'

/**
 * The account's events as they commit, on every instance (DESIGN.md 13). Each stored event is
 * announced by the database on the channel `events` when its transaction commits (a trigger,
 * migrations/…-graphql.ts): on PostgreSQL every instance listening hears it, whichever instance
 * committed it; the embedded database is one process. An instance reads the events its own
 * subscribers are waiting for, a burst of them in one statement, and publishes each to its
 * account's topic on mercurius's pubsub.
 */

export const EVENTS_CHANNEL = 'events'

export function eventTopic(accountId: string): string {
  return `events:${accountId}`
}

export interface EventMessage {
  events: { id: string; type: string; createdAt: string; data: Record<string, unknown> }
}

export function eventMessage(event: StoredEvent): EventMessage {
  return { events: { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data } }
}

export class EventFeed {
  readonly #app: FastifyInstance
  /** Open subscriptions on this instance, by account. */
  readonly #listening = new Map<string, number>()
  #pending: string[] = []
  #unlisten: (() => Promise<void>) | undefined

  constructor(app: FastifyInstance) {
    this.#app = app
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#app.store.listen(EVENTS_CHANNEL, (payload) => this.#heard(payload))
  }

  async stop(): Promise<void> {
    await this.#unlisten?.()
    this.#unlisten = undefined
  }

  /** Counts a subscription of the account's events; the returned function ends it. */
  follow(accountId: string): () => void {
    this.#listening.set(accountId, (this.#listening.get(accountId) ?? 0) + 1)
    let ended = false
    return () => {
      if (ended) return
      ended = true
      const left = (this.#listening.get(accountId) ?? 1) - 1
      if (left > 0) this.#listening.set(accountId, left)
      else this.#listening.delete(accountId)
    }
  }

  #heard(payload: string): void {
    const [accountId, eventId] = payload.split(' ')
    if (!accountId || !eventId || !this.#listening.has(accountId)) return
    this.#pending.push(eventId)
    // Events committed together are announced together: read them in one statement.
    if (this.#pending.length === 1) setImmediate(() => void this.#publishPending())
  }

  async #publishPending(): Promise<void> {
    const ids = this.#pending
    this.#pending = []
    const { db, keyring, graphql, log } = this.#app
    try {
      const rows = await db.selectFrom('events').selectAll().where('id', 'in', ids).orderBy('created_at').orderBy('id').execute()
      for (const row of rows) {
        const event = openEvent(keyring, row)
        graphql.pubsub.publish({ topic: eventTopic(event.accountId), payload: eventMessage(event) })
      }
    } catch (error) {
      log.warn({ err: error, events: ids.length }, 'events not streamed to GraphQL subscriptions')
    }
  }
}
