import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'
import { EVENT_TYPES } from '../domain/webhooks/events.ts'
import type { ApiPrincipal } from '../frame/index.ts'
import { graphqlAuditEntry } from './audit-log.ts'
import { ACCESS, type GraphqlContext } from './context.ts'
import { badInput, mapError, toGraphqlError } from './errors.ts'
import { eventTopic, type EventFeed, type EventMessage } from './event-feed.ts'

/**
 * Subscriptions over WebSocket, protocol graphql-transport-ws (DESIGN.md 13). The credential
 * comes in `connection_init` (`{authorization: "Bearer …"}`) and goes through the account frame
 * like any request (one call charged); a refusal closes the socket with 4403 and the reason.
 * `events` needs plan pro and the scope manage:webhooks. Every open connection is looked at again
 * through the frame every RECHECK_MS: a revoked, expired or rotated-out token, a member removed or
 * no longer allowed the events (demoted), or an account no longer on a plan with webhooks, closes it
 * with 4403 and the reason.
 */

/**
 * How often open connections are looked at again: a change committed on any instance (a token
 * revoked, a member removed or demoted, a plan lowered) closes them within a second.
 */
export const RECHECK_MS = 400
/** How long a WebSocket may stay open without a connection_init (graphql-transport-ws: the server closes it). */
export const INIT_WAIT_MS = 10_000
/** graphql-transport-ws: the server refuses the connection. */
const FORBIDDEN = 4403
const TOO_MANY = 4429

interface Connection {
  socket: WebSocket
  request: FastifyRequest
  principal: ApiPrincipal
  /**
   * Whether the credential allowed the events when the connection opened. One that never did is
   * refused each subscription it asks for (FORBIDDEN with the reason); only a change closes a
   * connection, so the recheck does not race that answer.
   */
  eventsAllowed: boolean
}

/** What mercurius calls `onConnect` on: the connection object, whose socket and upgrade request we need. */
interface MercuriusConnection {
  socket?: WebSocket
  context?: { request?: FastifyRequest }
}

/** WebSocket close reasons are at most 123 bytes. */
const reason = (text: string) =>
  Buffer.from(text)
    .subarray(0, 123)
    .toString('utf8')
    .replace(/\uFFFD$/, '')

export class Subscriptions {
  readonly #app: FastifyInstance
  readonly #audience: string
  readonly #feed: EventFeed
  readonly #open = new Set<Connection>()
  readonly #initialised = new WeakSet<FastifyRequest>()
  #timer: NodeJS.Timeout | undefined
  #checking = false

  constructor(app: FastifyInstance, audience: string, feed: EventFeed) {
    this.#app = app
    this.#audience = audience
    this.#feed = feed
  }

  start(): void {
    this.#timer = setInterval(() => void this.recheck(), RECHECK_MS).unref()
  }

  stop(): void {
    clearInterval(this.#timer)
    for (const { socket } of this.#open) socket.close(1001, 'The server is shutting down')
    this.#open.clear()
  }

  /** A WebSocket handshake: dropped if no connection_init has come within INIT_WAIT_MS (mercurius waits forever). */
  expectInit(request: FastifyRequest): void {
    const timer = setTimeout(() => {
      if (!this.#initialised.has(request)) request.raw.socket.destroy()
    }, INIT_WAIT_MS).unref()
    request.raw.socket.once('close', () => clearTimeout(timer))
  }

  /** mercurius's `subscription.onConnect`: the principal joins the connection's context, or the socket is closed. */
  onConnect(): (this: MercuriusConnection | undefined, message: { payload?: unknown }) => Promise<false | { principal: ApiPrincipal }> {
    const subscriptions = this
    return async function onConnect(this: MercuriusConnection | undefined, message) {
      const socket = this?.socket
      const request = this?.context?.request
      if (!socket || !request) return false
      subscriptions.#initialised.add(request)
      const payload = (message.payload ?? {}) as { authorization?: unknown; Authorization?: unknown; headers?: { authorization?: unknown } }
      const given = payload.authorization ?? payload.Authorization ?? payload.headers?.authorization
      const secret = typeof given === 'string' ? given : ''
      request.headers.authorization = secret
      try {
        const principal = await subscriptions.#app.frame.authenticate(request, null, { audience: subscriptions.#audience })
        subscriptions.#app.frame.authorize(principal, {})
        subscriptions.#watch({ socket, request, principal, eventsAllowed: subscriptions.#allowsEvents(principal) })
        return { principal }
      } catch (error) {
        const mapped = mapError(error, request)
        socket.close(mapped.status === 429 ? TOO_MANY : FORBIDDEN, reason(`${mapped.extensions.code}: ${mapped.message}`))
        return false
      }
    }
  }

  #allowsEvents(principal: ApiPrincipal): boolean {
    try {
      this.#app.frame.authorize(principal, ACCESS.webhooks)
      return true
    } catch {
      return false
    }
  }

  #watch(connection: Connection): void {
    this.#open.add(connection)
    connection.socket.once('close', () => this.#open.delete(connection))
  }

  /**
   * Whether the connection may still be open: the frame reads afresh who its credential speaks for
   * (revoked, expired or rotated out; the member removed or their role changed; the account's plan)
   * and, for a connection that was allowed the events, their access is asked again (plan, scope,
   * the owner's role).
   */
  async #stillAllowed({ request, principal, eventsAllowed }: Connection): Promise<{ ok: true } | { ok: false; why: string }> {
    try {
      const current = await this.#app.frame.current(request, principal)
      if (eventsAllowed) this.#app.frame.authorize(current, ACCESS.webhooks)
      return { ok: true }
    } catch (error) {
      const mapped = mapError(error, request)
      if (mapped.status >= 500) throw error
      return { ok: false, why: `${mapped.extensions.code}: ${mapped.message}` }
    }
  }

  /** Closes every connection whose credential, membership, role, scope or plan no longer allows its events. */
  async recheck(): Promise<void> {
    if (this.#checking) return
    this.#checking = true
    try {
      await Promise.all([...this.#open].map((connection) => this.#recheckOne(connection)))
    } finally {
      this.#checking = false
    }
  }

  async #recheckOne(connection: Connection): Promise<void> {
    try {
      const verdict = await this.#stillAllowed(connection)
      if (verdict.ok) return
      connection.request.log.info(
        { account: connection.principal.accountId },
        'GraphQL subscription closed: its credential no longer holds',
      )
      connection.socket.close(FORBIDDEN, reason(verdict.why))
      this.#open.delete(connection)
    } catch (error) {
      // The database may be away for a moment: the next round decides.
      connection.request.log.warn({ err: error }, 'GraphQL subscription credential not rechecked')
    }
  }

  /** Subscription.events: the account's events of the given types, from now on. */
  resolvers() {
    const feed = this.#feed
    const app = this.#app
    return {
      Subscription: {
        events: {
          async subscribe(_root: unknown, args: { types?: string[] | null }, context: GraphqlContext) {
            const request = context.request
            try {
              app.frame.authorize(context.principal, ACCESS.webhooks)
              const unknown = args.types?.find((type) => !(EVENT_TYPES as readonly string[]).includes(type))
              if (unknown !== undefined) throw badInput(`The event type '${unknown}' is not one of ${EVENT_TYPES.join(', ')}`, 'types')
            } catch (error) {
              if (request) app.frame.audit.record(graphqlAuditEntry(request, context, mapError(error).status))
              throw toGraphqlError(error, request)
            }
            if (request) app.frame.audit.record(graphqlAuditEntry(request, context, 101))
            const wanted = args.types?.length ? new Set(args.types) : undefined
            const end = feed.follow(context.principal.accountId)
            const source = await context.pubsub.subscribe<EventMessage>(eventTopic(context.principal.accountId))
            return (async function* events() {
              try {
                for await (const message of source) if (!wanted || wanted.has(message.events.type)) yield message
              } finally {
                end()
              }
            })()
          },
        },
      },
    }
  }
}
