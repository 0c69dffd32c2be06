import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { leadConsentFor } from '../../domain/leads/consent.ts'
import { findSiteById } from '../../domain/sites/sites.ts'
import { liveAssistant, parsePageUrl, resolveLocale, siteForPage } from '../context.ts'
import { AGENT_BODY_LIMIT, agentError } from '../errors.ts'
import { openerFor } from '../opener.ts'
import {
  AgentBootstrapRequest,
  AgentBootstrapResponse,
  AgentError,
  AgentEraseRequest,
  AgentRateLimitError,
  described,
  type AgentBootstrapResponse as BootstrapBody,
} from '../schemas.ts'
import { createSession, eraseSession, findSession, loadTranscript } from '../sessions.ts'
import { Type } from 'typebox'

/** POST /bootstrap creates or restores a session; DELETE /bootstrap erases one (INTERFACE.md 4.2). */
export default async function bootstrapRoutes(app: FastifyInstance) {
  const { db, keyring, config } = app
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.post(
    '/bootstrap',
    {
      config: { operation: 'agent.bootstrap' },
      bodyLimit: AGENT_BODY_LIMIT,
      schema: {
        summary: 'Create or restore a sales-assistant session',
        tags: ['sales-agent'],
        body: AgentBootstrapRequest,
        response: {
          200: described(AgentBootstrapResponse, 'A new session, or the restored one with its transcript'),
          400: described(AgentError, 'Invalid request or invalid session id'),
          404: described(AgentError, 'Feature disabled or session not found'),
          429: described(AgentRateLimitError, 'Rate limited; see Retry-After'),
          503: described(AgentError, 'Service unavailable; contactFallback is true'),
        },
      },
    },
    async (request, reply): Promise<BootstrapBody> => {
      const { body } = request
      reply.header('cache-control', 'no-store')
      const page = parsePageUrl(body.url, config.BASE_URL)

      if ('session_id' in body) {
        const session = await findSession(db, body.session_id, body.session_token)
        if (!session) throw agentError('sessionNotFound')
        const site = await findSiteById(db, session.siteId)
        const assistant = liveAssistant(site)
        if (!site || !assistant) throw agentError('featureDisabled')
        const messages = await loadTranscript(db, keyring, session.id)
        return {
          session_id: session.id,
          session_token: body.session_token,
          locale: session.locale,
          ...(assistant.persona ? { persona: assistant.persona } : {}),
          capabilities: assistant.capabilities,
          opener: openerFor(assistant, site.name, session.locale),
          messages,
          handoff: { state: session.handoff },
          lead_consent: assistant.capabilities.lead ? leadConsentFor(site.settings, session.locale) : null,
        }
      }

      const site = await siteForPage(db, page, config.SITES_DOMAIN)
      const assistant = liveAssistant(site)
      if (!site || !assistant) throw agentError('featureDisabled')
      // An opaque origin is a sandboxed page: only a site's own preview (/s/{site_id}/…) may open a session from one.
      if (request.headers.origin === 'null' && !page?.pathname.startsWith(`/s/${site.id}/`)) throw agentError('featureDisabled')
      const locale = resolveLocale(body.locale, page, site.default_locale)
      const created = await createSession(db, site.id, locale)
      return {
        session_id: created.id,
        session_token: created.token,
        locale,
        ...(assistant.persona ? { persona: assistant.persona } : {}),
        capabilities: assistant.capabilities,
        opener: openerFor(assistant, site.name, locale),
        messages: [],
        handoff: { state: 'none' },
        lead_consent: assistant.capabilities.lead ? leadConsentFor(site.settings, locale) : null,
      }
    },
  )

  typed.delete(
    '/bootstrap',
    {
      config: { operation: 'agent.erase', agentUnavailable: 'erasureUnavailable' },
      bodyLimit: AGENT_BODY_LIMIT,
      schema: {
        summary: 'Erase a sales-assistant session with its transcript',
        tags: ['sales-agent'],
        body: AgentEraseRequest,
        response: {
          204: Type.Null({ description: 'Erased with its transcript, turns and events' }),
          400: described(AgentError, 'Invalid session id or request'),
          404: described(AgentError, 'Session not found'),
          429: described(AgentRateLimitError, 'Rate limited; see Retry-After'),
          503: described(AgentError, 'Erasure unavailable; contactFallback is true'),
        },
      },
    },
    async (request, reply) => {
      const { body } = request
      const session = await findSession(db, body.session_id, body.session_token)
      if (!session) throw agentError('sessionNotFound')
      await eraseSession(db, session.id)
      return reply.code(204).header('cache-control', 'no-store').send(null)
    },
  )
}
