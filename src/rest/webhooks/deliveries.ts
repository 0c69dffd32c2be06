import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { queueTestDelivery } from '../../domain/webhooks/queue-delivery.ts'
import { listAttempts, listDeadLetters, replayDeadLetter, replayWindow } from '../../domain/webhooks/deliveries.ts'
import { findEndpoint, rotateSecret } from '../../domain/webhooks/endpoints.ts'
import { errors } from '../../errors.ts'
import { answerChange } from '../audited-change.ts'
import { envelope, ListEnvelope, ListQuery, notFound, pageOf } from '../http.ts'
import {
  Attempt,
  DeadLetter,
  DeadLetterParams,
  EndpointParams,
  ReplayQueued,
  ReplayWindow,
  RotatedSecret,
  TestQueued,
  WindowQueued,
} from './schemas.ts'

const tags = ['webhooks']
/** The longest window one replay may cover. */
const MAX_REPLAY_WINDOW_MS = 30 * 86_400_000

/** A new signing secret, and a test event. */
function secretAndTestRoutes(app: FastifyInstance, keyring: Keyring) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { operation: 'webhooks.rotateSecret', scope: 'manage:webhooks', access: 'write' },
      schema: {
        summary: 'Replace the signing secret; both sign for 24 hours',
        tags,
        params: EndpointParams,
        response: { 200: RotatedSecret },
      },
    },
    async (request, reply) => {
      return answerChange(
        request,
        reply,
        async (trx) => {
          const rotated = await rotateSecret(trx, keyring, request.principal.accountId, request.params.id)
          if (!rotated) throw notFound('Webhook endpoint')
          if ('overlapUntil' in rotated) {
            throw new errors.rotationInProgress(
              `The previous secret still signs until ${rotated.overlapUntil.toISOString()}; rotate again after that`,
            )
          }
          return rotated
        },
        (result) => ({
          status: 200,
          body: { secret: result.secret, previous_secret_expires_at: result.previousExpiresAt.toISOString() },
          etagSource: false,
        }),
      )
    },
  )

  typed.post(
    '/webhooks/:id/test',
    {
      config: { operation: 'webhooks.test', scope: 'manage:webhooks', access: 'write' },
      schema: { summary: 'Send a webhook.test event to this endpoint', tags, params: EndpointParams, response: { 202: TestQueued } },
    },
    async (request, reply) => {
      return answerChange(
        request,
        reply,
        async (trx) => {
          const endpoint = await findEndpoint(trx, request.principal.accountId, request.params.id)
          if (!endpoint) throw notFound('Webhook endpoint')
          if (!endpoint.enabled) throw new errors.endpointDisabled('The endpoint is disabled; enable it first')
          return queueTestDelivery(trx, endpoint.account_id, endpoint.id)
        },
        (queued) => ({ status: 202, body: { event_id: queued.eventId, delivery_id: queued.deliveryId }, etagSource: false }),
      )
    },
  )
}

/** The attempts of an endpoint and the account's dead letters. */
function deliveryListRoutes(app: FastifyInstance, db: Db, keyring: Keyring) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.get(
    '/webhooks/:id/deliveries',
    {
      config: { operation: 'webhooks.deliveries', scope: 'manage:webhooks', access: 'read' },
      schema: {
        summary: 'Delivery attempts to this endpoint, latest first',
        tags,
        params: EndpointParams,
        querystring: ListQuery,
        response: { 200: ListEnvelope(Attempt, 'Attempts, latest first') },
      },
    },
    async (request) => {
      const endpoint = await findEndpoint(db, request.principal.accountId, request.params.id)
      if (!endpoint) throw notFound('Webhook endpoint')
      const { limit, offset, page, perPage } = pageOf(request.query)
      const { items, total } = await listAttempts(db, endpoint.id, { limit, offset }, keyring)
      return envelope(items, total, page, perPage)
    },
  )

  typed.get(
    '/webhooks/dead-letters',
    {
      config: { operation: 'webhooks.deadLetters', scope: 'manage:webhooks', access: 'read' },
      schema: {
        summary: 'Deliveries that finally failed and were not replayed, latest first',
        tags,
        querystring: ListQuery,
        response: { 200: ListEnvelope(DeadLetter, 'Dead letters') },
      },
    },
    async (request) => {
      const { limit, offset, page, perPage } = pageOf(request.query)
      const { items, total } = await listDeadLetters(db, request.principal.accountId, { limit, offset })
      return envelope(items, total, page, perPage)
    },
  )
}

/** Replays: one dead letter, or every event of a time window. */
function replayRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/webhooks/dead-letters/:delivery_id/replay',
    {
      config: { operation: 'webhooks.replayDeadLetter', scope: 'manage:webhooks', access: 'write' },
      schema: { summary: 'Send a dead letter again (same webhook-id)', tags, params: DeadLetterParams, response: { 202: ReplayQueued } },
    },
    async (request, reply) => {
      return answerChange(
        request,
        reply,
        async (trx) => {
          const replayed = await replayDeadLetter(trx, request.principal.accountId, request.params.delivery_id)
          if (replayed === 'not_found') throw notFound('Dead letter')
          if (replayed === 'endpoint_disabled') throw new errors.endpointDisabled('The endpoint is disabled; enable it before replaying')
          return replayed
        },
        (result) => ({ status: 202, body: { delivery_id: result.deliveryId }, etagSource: false }),
      )
    },
  )

  typed.post(
    '/webhooks/:id/replay',
    {
      config: { operation: 'webhooks.replay', scope: 'manage:webhooks', access: 'write' },
      schema: {
        summary: 'Send again every event of a time window (at most 30 days) meant for this endpoint',
        tags,
        params: EndpointParams,
        body: ReplayWindow,
        response: { 202: WindowQueued },
      },
    },
    async (request, reply) => {
      const since = new Date(request.body.since)
      const until = request.body.until === undefined ? new Date() : new Date(request.body.until)
      if (until <= since) throw new errors.invalidReplayWindow("The window is inverted or empty: 'until' must come after 'since'")
      if (until.getTime() - since.getTime() > MAX_REPLAY_WINDOW_MS)
        throw new errors.invalidReplayWindow('The window may cover at most 30 days')
      return answerChange(
        request,
        reply,
        async (trx) => {
          const endpoint = await findEndpoint(trx, request.principal.accountId, request.params.id)
          if (!endpoint) throw notFound('Webhook endpoint')
          if (!endpoint.enabled) throw new errors.endpointDisabled('The endpoint is disabled; enable it before replaying')
          return replayWindow(trx, endpoint.account_id, endpoint.id, since, until)
        },
        (replayed) => ({ status: 202, body: { replayed }, etagSource: false }),
      )
    },
  )
}

/** Secret rotation, test sends, attempts, dead letters and replays of /v1/webhooks. */
export default async function deliveryRoutes(app: FastifyInstance) {
  secretAndTestRoutes(app, app.keyring)
  deliveryListRoutes(app, app.db, app.keyring)
  replayRoutes(app)
}
