import type { FastifyRequest } from 'fastify'
import type { MercuriusContext } from 'mercurius'
import { webhooksAllowed } from '../domain/webhooks/endpoints.ts'
import { errors } from '../errors.ts'
import type { ApiPrincipal, AuthorizeOptions, Entitlement } from '../frame/index.ts'

/** What every resolver is handed: mercurius's context and who the request speaks for. */
export interface GraphqlContext extends MercuriusContext {
  principal: ApiPrincipal
  /** The HTTP request (the WebSocket upgrade request for a subscription). */
  request?: FastifyRequest
  /** A subscription's operation name (a WebSocket carries several operations). */
  operation?: string
}

/** Webhooks come with plan pro and above (DESIGN.md 8), events over subscriptions too. */
export const WEBHOOKS: Entitlement = { name: 'webhooks', allows: webhooksAllowed }

/** The scope and access of each part of the schema, as REST's routes declare them. */
export const ACCESS = {
  readSites: { scope: 'read:sites', access: 'read' },
  writePages: { scope: 'write:pages', access: 'write' },
  readLeads: { scope: 'manage:leads', access: 'read' },
  writeLeads: { scope: 'manage:leads', access: 'write' },
  webhooks: { scope: 'manage:webhooks', access: 'read', entitlement: WEBHOOKS },
  auditLog: { scope: 'manage:tokens', access: 'read', role: 'owner' },
  account: { access: 'read' },
} as const satisfies Record<string, AuthorizeOptions>

/**
 * The principal, once the account frame allows this part of the schema (scope, plan, entitlement).
 * A refusal fails only the field that asked, so the rest of the answer keeps its data.
 */
export function allowed(context: GraphqlContext, options: AuthorizeOptions): ApiPrincipal {
  if (!context.principal) throw new errors.invalidToken('A bearer access token is required')
  context.app.frame.authorize(context.principal, options)
  return context.principal
}

/** The HTTP request of a resolver's call. */
export function requestOf(context: GraphqlContext): FastifyRequest {
  return context.request ?? context.reply.request
}
