/**
 * The account frame: what every interface on an account's data (/v1, /mcp, GraphQL, the
 * dashboard) does around its own work, written once. Registered in app.ts before the rooms; a
 * room reaches it as `app.frame`:
 *
 * - `authenticate(request, reply, { audience })` → `ApiPrincipal` (`kind` 'api_token' or
 *   'oauth'): the credential checked (API token by its hash, account OAuth token by the bearer
 *   guard) and one call charged against the account's hour (`principal.quota`). Given a reply, the
 *   rate-limit headers are set on it. A bad or missing credential throws 401 invalid_token with its
 *   WWW-Authenticate challenge. A credential known in memory is answered without a promise.
 * - `session(request)` → `SessionPrincipal | undefined`: the person signed in on this browser, in
 *   the account they chose there, with their role in it (dashboard; no budget, no scopes).
 *   Every principal names the member who acts (`userId`) and their `role`. The room must have registered @fastify/cookie.
 * - `authorize(principal, { scope?, access?: 'read' | 'write', role?, entitlement? })`: throws 403
 *   plan_required (naming the account, its plan and the plan that allows it), 429 rate_limited
 *   with Retry-After, 403 insufficient_scope with its challenge, 403 role_required when the
 *   member's role (`principal.role`: owner, editor, viewer) is below what the action needs (given
 *   as `role`, else the owner for webhooks, an editor for a write, a viewer for a read). `entitlement` is anything of the
 *   price list the action needs (an `Entitlement`); the plugin option `apiAccess` is where the
 *   entitlements of the price list plug in for API access itself.
 * - `setRateLimitHeaders(reply, principal.quota)`: the budget headers, for any HTTP room;
 *   `usage(accountId)`: the hour's count so far (for a page showing it).
 * - `auditedChange(db, entry, work)`: a change and its audit record in one transaction;
 *   `audit.auditedChange(request, principal, status, work)` does it for a request's call (the entry made
 *   by `auditEntry` from the route's `config.operation`) and marks the request so it is not
 *   recorded twice (`audit.isWritten`). `audit.record(entry)` records a read or a refusal in the
 *   next batch; `audit.recordNow(db, entry)` at once.
 *
 * Refusals are the registry's errors (src/errors.ts) and carry their response headers in
 * `error.headers` (`classify` hands them over): a room's error handler sends them with its own
 * shape of the error. `request.principal` is decorated here for the API rooms to set.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { usage } from '../domain/accounts/quota.ts'
import { sessionUser, webCookieNames } from '../domain/accounts/web-sessions.ts'
import { AuditTrail, auditedChange } from './audit-log.ts'
import { Authenticator, type AuthenticateOptions } from './authenticate.ts'
import { authorize, planApiAccess, type ApiAccess, type AuthorizeOptions } from './authorize.ts'
import type { ApiPrincipal, Principal, SessionPrincipal } from './principal.ts'
import type { Role } from '../domain/accounts/members.ts'
import { setRateLimitHeaders } from './rate-limit-headers.ts'

export type { AuditEntry } from '../domain/accounts/audit-log.ts'
export type { AuthenticateOptions } from './authenticate.ts'
export { planRequired, type ApiAccess, type AuthorizeOptions, type Entitlement } from './authorize.ts'
export { auditEntry, auditedChange } from './audit-log.ts'
export {
  isApiPrincipal,
  type ApiPrincipal,
  type ApiTokenPrincipal,
  type OAuthPrincipal,
  type Principal,
  type SessionPrincipal,
} from './principal.ts'
export { secondsUntilReset, setRateLimitHeaders } from './rate-limit-headers.ts'

export interface AccountFrame {
  /** Without a promise when every answer is in memory: await it in an async function, where a refusal thrown at once rejects. */
  authenticate(request: FastifyRequest, reply: FastifyReply | null, options: AuthenticateOptions): ApiPrincipal | Promise<ApiPrincipal>
  /** Who a connection's credential speaks for now (membership, role, scopes, plan), read afresh and not charged; throws the refusal. */
  current(request: FastifyRequest, opened: ApiPrincipal): Promise<ApiPrincipal>
  session(request: FastifyRequest): Promise<SessionPrincipal | undefined>
  authorize(principal: Principal, options?: AuthorizeOptions): void
  setRateLimitHeaders: typeof setRateLimitHeaders
  /** Calls counted against the account in the current hour, this instance's pending counts included. */
  usage(accountId: string): Promise<number>
  /** Drops the calls this instance counted for an account and not yet wrote (its erasure). */
  forgetCounts(accountId: string): Promise<void>
  auditedChange: typeof auditedChange
  audit: AuditTrail
}

declare module 'fastify' {
  interface FastifyInstance {
    frame: AccountFrame
  }
  interface FastifyContextConfig {
    /** The least role of the member a route needs, where the room's default does not fit (`authorize`'s `role`). */
    role?: Role
  }
  interface FastifyRequest {
    /** Who an API call speaks for: set by the room from `app.frame.authenticate` before its routes run. */
    principal: ApiPrincipal
  }
}

export interface FrameOptions {
  /** Which plans may read and change through the APIs (the entitlements of the price list). */
  apiAccess?: ApiAccess
}

async function accountFrame(app: FastifyInstance, options: FrameOptions) {
  const apiAccess = options.apiAccess ?? planApiAccess
  const authenticator = new Authenticator(app)
  const audit = new AuditTrail(app.db, app.log)
  const sessionCookie = webCookieNames(app.config.BASE_URL).session

  app.decorate('frame', {
    authenticate: (request, reply, authOptions) => authenticator.authenticate(request, reply, authOptions),
    current: (request, opened) => authenticator.current(request, opened),
    async session(request) {
      const token = (request as { cookies?: Record<string, string | undefined> }).cookies?.[sessionCookie]
      const person = token ? await sessionUser(app.db, app.keyring, token) : undefined
      return person && { kind: 'session', ...person, tokenId: null, clientId: null }
    },
    authorize: (principal, authorizeOptions = {}) => authorize(principal, authorizeOptions, apiAccess),
    setRateLimitHeaders,
    async usage(accountId) {
      // Counts this instance made far from the limit are written a few times a second: write them now.
      await authenticator.tally.flush()
      return usage(app.db, accountId)
    },
    forgetCounts: (accountId) => authenticator.tally.forget(accountId),
    auditedChange,
    audit,
  } satisfies AccountFrame)
  app.decorateRequest('principal', null as never)
  app.addHook('onClose', async () => {
    await authenticator.close()
    await audit.flush()
  })
}

export default fp(accountFrame, { name: 'account-frame', dependencies: ['core'] })
