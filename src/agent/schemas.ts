import { Type, type Static } from 'typebox'
import { CONSENT_VERSION } from '../domain/leads/consent.ts'
import { LOCALES } from '../domain/locales.ts'
import { literalUnion } from '../schemas.ts'

/**
 * The sales-assistant interface (INTERFACE.md 2.1, 2.2, 4.2). The routes validate with these very
 * schemas, and the published digest of the interface is computed from them (interface.ts).
 */

const closed = { additionalProperties: false } as const

export const AgentLocale = literalUnion(LOCALES)
export const AgentSessionId = Type.String({ pattern: '^ag_[A-Za-z0-9_-]+$', minLength: 4, maxLength: 200 })
export const AgentSessionToken = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })
export const TurnId = Type.String({ pattern: '^[A-Za-z0-9_-]{8,128}$' })
export const ConsentVersion = Type.Literal(CONSENT_VERSION)
export const ConsentDigest = Type.String({ pattern: '^[0-9a-f]{64}$' })
const PageUrl = Type.String({ maxLength: 500 })
const RelativeUrl = Type.String({ pattern: '^/' })

export const AgentHandoff = Type.Object(
  { state: Type.Union([Type.Literal('none'), Type.Literal('requested'), Type.Literal('active'), Type.Literal('resolved')]) },
  closed,
)

export const AgentMessage = Type.Object(
  {
    role: Type.Union([Type.Literal('visitor'), Type.Literal('assistant'), Type.Literal('operator')]),
    text: Type.String(),
    at: Type.String({ format: 'date-time' }),
  },
  closed,
)

export const AgentSuggestion = Type.Object({ label: Type.String(), prompt: Type.String() }, closed)

export const AgentSource = Type.Object({ title: Type.String(), url: RelativeUrl }, closed)

export const AgentLeadConsent = Type.Object(
  {
    version: ConsentVersion,
    locale: AgentLocale,
    text: Type.String({ minLength: 1 }),
    privacy: Type.Object({ label: Type.String({ minLength: 1 }), url: RelativeUrl }, closed),
    digest: ConsentDigest,
  },
  closed,
)

export const AgentAction = Type.Union([
  Type.Object({ type: Type.Literal('navigate'), href: RelativeUrl }, closed),
  Type.Object({ type: Type.Literal('open_booking'), url: Type.String() }, closed),
  Type.Object({ type: Type.Literal('capture_lead'), phase: Type.Literal('suggested') }, closed),
])

export const AgentError = Type.Object({ error: Type.String(), contactFallback: Type.Optional(Type.Boolean()) }, closed)

export const AgentRateLimitError = Type.Object(
  { error: Type.String(), code: Type.Literal('RATE_LIMITED'), retryAfterSeconds: Type.Integer({ minimum: 1 }) },
  closed,
)

export const AgentTurnInProgressError = Type.Object(
  { error: Type.Literal('turn-in-progress'), retry_after_seconds: Type.Integer({ minimum: 1 }) },
  closed,
)

export const AgentOk = Type.Object({ ok: Type.Literal(true) }, closed)
export const AgentLeadAccepted = Type.Object({ ok: Type.Literal(true), accepted: Type.Literal(true) }, closed)

export const AgentBootstrapCreateRequest = Type.Object({ url: Type.Optional(PageUrl), locale: Type.Optional(AgentLocale) }, closed)

export const AgentBootstrapRehydrateRequest = Type.Object(
  { session_id: AgentSessionId, session_token: AgentSessionToken, url: Type.Optional(PageUrl), locale: Type.Optional(AgentLocale) },
  closed,
)

export const AgentBootstrapRequest = Type.Union([AgentBootstrapRehydrateRequest, AgentBootstrapCreateRequest])

export const AgentCapabilities = Type.Object(
  { booking: Type.Boolean(), booking_url: Type.Optional(Type.String()), lead: Type.Boolean(), handoff: Type.Boolean() },
  closed,
)

export const AgentBootstrapResponse = Type.Object(
  {
    session_id: AgentSessionId,
    session_token: AgentSessionToken,
    locale: AgentLocale,
    persona: Type.Optional(Type.String()),
    capabilities: AgentCapabilities,
    opener: Type.Object({ text: Type.String(), suggestions: Type.Array(AgentSuggestion) }, closed),
    messages: Type.Array(AgentMessage),
    handoff: AgentHandoff,
    lead_consent: Type.Union([AgentLeadConsent, Type.Null()]),
  },
  closed,
)

export const AgentEraseRequest = Type.Object({ session_id: AgentSessionId, session_token: AgentSessionToken }, closed)

export const AgentChatRequest = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 2000 }),
    session_id: AgentSessionId,
    session_token: AgentSessionToken,
    turn_id: TurnId,
    url: Type.Optional(PageUrl),
    locale: Type.Optional(AgentLocale),
  },
  closed,
)

export const AgentChatResponse = Type.Object(
  {
    reply: Type.String({ maxLength: 1500 }),
    session_id: AgentSessionId,
    actions: Type.Optional(Type.Array(AgentAction, { maxItems: 1 })),
    suggestions: Type.Optional(Type.Array(AgentSuggestion, { maxItems: 1 })),
    sources: Type.Optional(Type.Array(AgentSource)),
    handoff: AgentHandoff,
    usage: Type.Optional(Type.Object({ tokens: Type.Integer({ minimum: 0 }) }, closed)),
  },
  closed,
)

export const AgentLeadSubmission = Type.Object(
  {
    email: Type.String({ format: 'email', minLength: 3, maxLength: 254 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    note: Type.Optional(Type.String({ maxLength: 1000 })),
    consent: Type.Literal(true),
    consent_version: ConsentVersion,
    consent_digest: ConsentDigest,
  },
  closed,
)

export const METRIC_EVENT_TYPES = [
  'assistant_surfaced',
  'assistant_opened',
  'assistant_dismissed',
  'assistant_closed',
  'suggestion_clicked',
  'action_clicked',
  'booking_opened',
  'handoff_ack',
] as const

export const AgentMetricEventRequest = Type.Object(
  {
    session_id: AgentSessionId,
    session_token: AgentSessionToken,
    type: literalUnion(METRIC_EVENT_TYPES),
  },
  closed,
)

export const AgentLeadEventRequest = Type.Object(
  { session_id: AgentSessionId, session_token: AgentSessionToken, type: Type.Literal('lead_submitted'), payload: AgentLeadSubmission },
  closed,
)

export const AgentEventRequest = Type.Union([AgentMetricEventRequest, AgentLeadEventRequest])

export type AgentLocale = Static<typeof AgentLocale>
export type AgentAction = Static<typeof AgentAction>
export type AgentSuggestion = Static<typeof AgentSuggestion>
export type AgentSource = Static<typeof AgentSource>
export type AgentMessage = Static<typeof AgentMessage>
export type AgentChatRequest = Static<typeof AgentChatRequest>
export type AgentChatResponse = Static<typeof AgentChatResponse>
export type AgentBootstrapResponse = Static<typeof AgentBootstrapResponse>
export type AgentEventRequest = Static<typeof AgentEventRequest>
export type AgentLeadEventRequest = Static<typeof AgentLeadEventRequest>
export type HandoffState = Static<typeof AgentHandoff>['state']

/** Every named schema of the interface: the bundle whose digest is published. */
export const interfaceSchemas = {
  AgentLocale,
  AgentSessionId,
  AgentSessionToken,
  AgentTurnId: TurnId,
  AgentConsentVersion: ConsentVersion,
  AgentConsentDigest: ConsentDigest,
  AgentHandoff,
  AgentMessage,
  AgentSuggestion,
  AgentSource,
  AgentLeadConsent,
  AgentAction,
  AgentError,
  AgentRateLimitError,
  AgentTurnInProgressError,
  AgentOk,
  AgentLeadAccepted,
  AgentBootstrapCreateRequest,
  AgentBootstrapRehydrateRequest,
  AgentBootstrapResponse,
  AgentEraseRequest,
  AgentChatRequest,
  AgentChatResponse,
  AgentLeadSubmission,
  AgentMetricEventRequest,
  AgentLeadEventRequest,
} as const

/** A schema with the description the OpenAPI document shows for one response. */
export function described<T extends object>(schema: T, description: string): T {
  return { ...schema, description }
}
