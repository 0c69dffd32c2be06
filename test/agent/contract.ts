import { Ajv, type ValidateFunction } from 'ajv'
import { ajvFormats } from '../../src/infra/ajv-formats.ts'

/**
 * The sales-assistant objects written straight from INTERFACE.md (2.1, 2.2, 4.2), independently of
 * the route schemas in src/agent/schemas.ts, so that a drift of either shows up as a failing test.
 */
const locale = { type: 'string', enum: ['de', 'en', 'fr'] }
const sessionId = { type: 'string', pattern: '^ag_[A-Za-z0-9_-]+$', minLength: 4, maxLength: 200 }
const sessionToken = { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' }
const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' }
const relative = { type: 'string', pattern: '^/' }

const handoff = {
  type: 'object',
  additionalProperties: false,
  required: ['state'],
  properties: { state: { enum: ['none', 'requested', 'active', 'resolved'] } },
}
const message = {
  type: 'object',
  additionalProperties: false,
  required: ['role', 'text', 'at'],
  properties: {
    role: { enum: ['visitor', 'assistant', 'operator'] },
    text: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
  },
}
const suggestion = {
  type: 'object',
  additionalProperties: false,
  required: ['label', 'prompt'],
  properties: { label: { type: 'string' }, prompt: { type: 'string' } },
}
const source = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'url'],
  properties: { title: { type: 'string' }, url: relative },
}
const leadConsent = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'locale', 'text', 'privacy', 'digest'],
  properties: {
    version: { const: '2026-07-24.1' },
    locale,
    text: { type: 'string', minLength: 1 },
    privacy: {
      type: 'object',
      additionalProperties: false,
      required: ['label', 'url'],
      properties: { label: { type: 'string', minLength: 1 }, url: relative },
    },
    digest: hex64,
  },
}
const action = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'href'],
      properties: { type: { const: 'navigate' }, href: relative },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'url'],
      properties: { type: { const: 'open_booking' }, url: { type: 'string' } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'phase'],
      properties: { type: { const: 'capture_lead' }, phase: { const: 'suggested' } },
    },
  ],
}

export const contract = {
  bootstrap: {
    type: 'object',
    additionalProperties: false,
    required: ['session_id', 'session_token', 'locale', 'capabilities', 'opener', 'messages', 'handoff', 'lead_consent'],
    properties: {
      session_id: sessionId,
      session_token: sessionToken,
      locale,
      persona: { type: 'string' },
      capabilities: {
        type: 'object',
        additionalProperties: false,
        required: ['booking', 'lead', 'handoff'],
        properties: {
          booking: { type: 'boolean' },
          booking_url: { type: 'string' },
          lead: { type: 'boolean' },
          handoff: { type: 'boolean' },
        },
      },
      opener: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'suggestions'],
        properties: { text: { type: 'string' }, suggestions: { type: 'array', items: suggestion } },
      },
      messages: { type: 'array', items: message },
      handoff,
      lead_consent: { oneOf: [leadConsent, { type: 'null' }] },
    },
  },
  chat: {
    type: 'object',
    additionalProperties: false,
    required: ['reply', 'session_id', 'handoff'],
    properties: {
      reply: { type: 'string', maxLength: 1500 },
      session_id: sessionId,
      actions: { type: 'array', maxItems: 1, items: action },
      suggestions: { type: 'array', maxItems: 1, items: suggestion },
      sources: { type: 'array', items: source },
      handoff,
      usage: { type: 'object', additionalProperties: false, required: ['tokens'], properties: { tokens: { type: 'integer', minimum: 0 } } },
    },
  },
  ok: { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { const: true } } },
  leadAccepted: {
    type: 'object',
    additionalProperties: false,
    required: ['ok', 'accepted'],
    properties: { ok: { const: true }, accepted: { const: true } },
  },
  error: {
    type: 'object',
    additionalProperties: false,
    required: ['error'],
    properties: { error: { type: 'string' }, contactFallback: { type: 'boolean' } },
  },
  rateLimit: {
    type: 'object',
    additionalProperties: false,
    required: ['error', 'code', 'retryAfterSeconds'],
    properties: { error: { type: 'string' }, code: { const: 'RATE_LIMITED' }, retryAfterSeconds: { type: 'integer', minimum: 1 } },
  },
  turnInProgress: {
    type: 'object',
    additionalProperties: false,
    required: ['error', 'retry_after_seconds'],
    properties: { error: { const: 'turn-in-progress' }, retry_after_seconds: { type: 'integer', minimum: 1 } },
  },
} as const

const ajv = new Ajv({ strict: true, allErrors: true })
ajvFormats(ajv)
const compiled = new Map<string, ValidateFunction>()

/** Validates a body against a contract schema; answers the errors (empty when valid) for readable failures. */
export function contractErrors(name: keyof typeof contract, body: unknown): string[] {
  let validate = compiled.get(name)
  if (!validate) {
    validate = ajv.compile(contract[name])
    compiled.set(name, validate)
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}
