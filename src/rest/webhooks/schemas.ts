import { Type } from 'typebox'
import { EVENT_TYPES } from '../../domain/webhooks/events.ts'
import { literalUnion } from '../../schemas.ts'

const DateTime = Type.String({ format: 'date-time' })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const EndpointId = Type.String({ pattern: '^whep_[A-Za-z0-9_-]{22}$', description: 'whep_…' })
export const DeliveryId = Type.String({ pattern: '^dlv_[A-Za-z0-9_-]{22}$', description: 'dlv_…' })
export const EventTypeName = literalUnion(EVENT_TYPES)

const endpointFields = {
  id: EndpointId,
  url: Type.String({ description: 'Where deliveries are POSTed.' }),
  description: Type.String(),
  event_types: Type.Array(EventTypeName, { description: 'The event types sent; empty: every type.' }),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(
    Type.Union([Type.Literal('gone'), Type.Literal('failing')], {
      description: 'gone: it answered 410; failing: every delivery failed for 5 days.',
    }),
  ),
  created_at: DateTime,
}
export const Endpoint = Type.Object(endpointFields, { additionalProperties: false, description: 'A webhook endpoint (never its secret)' })
export const EndpointWithSecret = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({ description: 'The signing secret, `whsec_<base64 of 32 bytes>`: shown here once, never again.' }),
  },
  { additionalProperties: false, description: 'The new endpoint with its signing secret, shown once' },
)

const Url = Type.String({ minLength: 1, maxLength: 500, description: 'https URL (http and loopback only in development).' })
const Description = Type.String({ maxLength: 500 })
const EventTypes = Type.Array(EventTypeName, { maxItems: EVENT_TYPES.length, uniqueItems: true })

export const NewEndpoint = Type.Object(
  { url: Url, description: Type.Optional(Description), event_types: Type.Optional(EventTypes), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
)
export const EndpointPatch = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    event_types: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const RotatedSecret = Type.Object(
  {
    secret: Type.String({ description: 'The new signing secret, shown once.' }),
    previous_secret_expires_at: Type.String({
      format: 'date-time',
      description: 'Until then the previous secret signs too (a second signature).',
    }),
  },
  { additionalProperties: false, description: 'The new secret' },
)

export const TestQueued = Type.Object(
  { event_id: Type.String({ description: 'evt_… : the webhook-id of the test delivery' }), delivery_id: DeliveryId },
  { additionalProperties: false, description: 'A `webhook.test` event is queued for this endpoint' },
)

export const Attempt = Type.Object(
  {
    id: Type.String(),
    delivery_id: DeliveryId,
    event_id: Type.String(),
    type: Type.String(),
    attempt: Type.Integer({ minimum: 1 }),
    attempted_at: DateTime,
    status: Nullable(Type.Integer({ description: 'HTTP status; null when no answer came (timeout, connection error, refused address).' })),
    duration_ms: Type.Integer({ minimum: 0 }),
    response: Nullable(Type.String({ description: 'The first kilobyte of the answer.' })),
    error: Nullable(Type.String()),
  },
  { additionalProperties: false },
)

export const DeadLetter = Type.Object(
  {
    id: DeliveryId,
    endpoint_id: EndpointId,
    event_id: Type.String(),
    type: Type.String(),
    attempts: Type.Integer({ minimum: 0 }),
    last_status: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    failed_at: DateTime,
  },
  { additionalProperties: false },
)

export const ReplayQueued = Type.Object(
  { delivery_id: DeliveryId },
  { additionalProperties: false, description: 'The dead letter is sent again as a new delivery' },
)

export const ReplayWindow = Type.Object(
  { since: DateTime, until: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })) },
  { additionalProperties: false },
)
export const WindowQueued = Type.Object(
  { replayed: Type.Integer({ minimum: 0, description: 'Events queued again.' }) },
  { additionalProperties: false, description: 'The window is being replayed' },
)

export const EndpointParams = Type.Object({ id: EndpointId }, { additionalProperties: false })
export const DeadLetterParams = Type.Object({ delivery_id: DeliveryId }, { additionalProperties: false })
