import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CONSENT_VERSION, leadConsentFor } from '../../domain/leads/consent.ts'
import { insertLead } from '../../domain/leads/leads.ts'
import { liveAssistant } from '../context.ts'
import { AGENT_BODY_LIMIT, agentError } from '../errors.ts'
import { AgentError, AgentEventRequest, AgentLeadAccepted, AgentOk, AgentRateLimitError, described } from '../schemas.ts'
import { findSession, recordEvent } from '../sessions.ts'

/** POST /event: interaction events (200) and consent-bound leads (202) (INTERFACE.md 4.2, 6.1). */
export default async function eventRoute(app: FastifyInstance) {
  const { db, keyring } = app

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/event',
    {
      bodyLimit: AGENT_BODY_LIMIT,
      config: { operation: 'agent.event', agentUnavailable: 'persistenceUnavailable' },
      schema: {
        summary: 'Record an interaction event or a consent-bound lead',
        tags: ['sales-agent'],
        body: AgentEventRequest,
        response: {
          200: described(AgentOk, 'Interaction accepted or safely suppressed'),
          202: described(AgentLeadAccepted, 'Consent-bound lead accepted'),
          400: described(AgentError, 'Invalid request or invalid consent evidence'),
          404: described(AgentError, 'Feature disabled or session not found'),
          409: described(AgentError, 'Consent version mismatch'),
          429: described(AgentRateLimitError, 'Rate limited; see Retry-After'),
          503: described(AgentError, 'Persistence unavailable; contactFallback is true'),
        },
      },
      // A lead given under another consent version is refused with 409 (INTERFACE.md 9, rule 1),
      // before the schema (whose constant would otherwise make it a plain 400) is applied.
      preValidation: async (request) => {
        const body = request.body as { type?: unknown; payload?: { consent_version?: unknown } } | null
        const version = body?.type === 'lead_submitted' ? body.payload?.consent_version : undefined
        if (typeof version === 'string' && version !== CONSENT_VERSION) throw agentError('consentVersionMismatch')
      },
    },
    async (request, reply) => {
      const { body } = request
      reply.header('cache-control', 'no-store')
      const session = await findSession(db, body.session_id, body.session_token)
      if (!session) throw agentError('sessionNotFound')
      const assistant = liveAssistant({ status: session.siteStatus, settings: session.siteSettings })
      if (!assistant) throw agentError('featureDisabled')

      if (body.type !== 'lead_submitted') {
        await recordEvent(db, session.id, body.type)
        return reply.code(200).send({ ok: true })
      }

      // A site that takes no leads has the lead feature off: 404, like any disabled feature.
      if (!assistant.capabilities.lead) throw agentError('featureDisabled')
      const { payload } = body
      const consent = leadConsentFor(session.siteSettings, session.locale)
      if (payload.consent_digest !== consent.digest) throw agentError('invalidConsent')

      // insertLead records lead.received for the webhooks in the same transaction.
      await db.transaction().execute(async (trx) => {
        await insertLead(trx, keyring, {
          siteId: session.siteId,
          sessionId: session.id,
          email: payload.email,
          name: payload.name,
          note: payload.note,
          consent: { version: consent.version, digest: consent.digest, locale: consent.locale, acceptedAt: new Date() },
          source: 'assistant',
        })
        await recordEvent(trx, session.id, 'lead_submitted')
      })
      return reply.code(202).send({ ok: true, accepted: true })
    },
  )
}
