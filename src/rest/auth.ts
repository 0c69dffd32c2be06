import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { apiTokenIdOf, checkApiToken, looksLikeApiToken, recentApiToken, rememberApiToken, touchApiTokens, type SecretCheck } from '../domain/api-tokens.ts'
import type { Plan } from '../domain/plans.ts'
import { allows, chargeApiToken, type Charge } from '../domain/quota.ts'
import { chargeAccount, quotaTallyOf } from '../domain/quota-tally.ts'
import { errors } from '../errors.ts'
import { challenge, requireBearer, resourceMetadataUrl } from '../infra/bearer.ts'
import { rememberCharge, setRateLimitHeaders } from './quota.ts'

/** Who a /v1 call speaks for: set by the frame before any route runs. */
export interface Principal {
  accountId: string
  plan: Plan
  /** The API token used (`tok_…`), or null for an OAuth access token. */
  tokenId: string | null
  /** The OAuth client (or claimed agent registration) of an access token, or null for an API token. */
  clientId: string | null
  scopes: string[]
}

/** What a /v1 route declares in `config`: its operation name, the scope it needs and whether it writes. */
export interface RestRouteConfig {
  operation?: string
  scope?: string
  access?: 'read' | 'write'
  /** Statuses whose answer is an item with its ETag, where the default (GET/PATCH 200, 201) does not fit. */
  etag?: readonly number[]
  /** Statuses whose answer carries Location, where the default (201) does not fit. */
  location?: readonly number[]
  openapi?: FastifyContextConfig['openapi']
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
  }
  interface FastifyContextConfig {
    operation?: string
    scope?: string
    access?: 'read' | 'write'
    etag?: readonly number[]
    location?: readonly number[]
  }
}

/** Last-used times are written every few seconds for all tokens at once, never on the request path. */
const TOUCH_EVERY_MS = 5000
/** A token seen used this recently is not recorded again. */
const TOUCH_RESOLUTION_MS = 60_000

function lastUsedRecorder(app: FastifyInstance) {
  let pending = new Map<string, Date>()
  const flush = async () => {
    if (!pending.size) return
    const batch = pending
    pending = new Map()
    await touchApiTokens(app.db, batch).catch((error: unknown) => app.log.warn({ err: error }, 'token last-used times not recorded'))
  }
  const timer = setInterval(() => void flush(), TOUCH_EVERY_MS).unref()
  app.addHook('onClose', async () => {
    clearInterval(timer)
    await flush()
  })
  return (tokenId: string, lastUsedAt: Date | null) => {
    const now = new Date()
    if (!lastUsedAt || now.getTime() - lastUsedAt.getTime() > TOUCH_RESOLUTION_MS) pending.set(tokenId, now)
  }
}

const REASONS = {
  malformed: 'The API token is malformed',
  unknown: 'The API token is invalid',
  revoked: 'The API token has been revoked',
  expired: 'The API token has expired',
} as const

/**
 * The frame's onRequest hook: who is calling, which plan, how much of the hour is left, and
 * whether the route's scope and access are granted. Runs before the body is read or validated,
 * so an anonymous caller learns nothing about a route's input rules.
 * - account OAuth access tokens (audience {api_url}/v1) are checked by the shared bearer guard;
 *   API tokens (`wps_…`) by their hash. Either way 401 with a WWW-Authenticate challenge;
 * - one statement counts the call against the account's hour and reads the plan;
 * - then, in order: 403 plan_required (no API on the plan), 429 rate_limited, 403
 *   insufficient_scope, 403 plan_required (a write on a read-only plan). The rate-limit
 *   headers are set first, so every answer to an identified account carries them.
 */
export function authenticate(app: FastifyInstance, audience: string): onRequestAsyncHookHandler {
  const jwtGuard = requireBearer({ audience })
  const metadata = resourceMetadataUrl(audience)
  const touched = lastUsedRecorder(app)
  const tally = quotaTallyOf(app.db, app.log)
  app.addHook('onClose', async () => tally.flush())

  const refuseToken = (reply: FastifyReply, description: string) => {
    reply.header('www-authenticate', challenge({ error: 'invalid_token', error_description: description, resource_metadata: metadata }))
    return new errors.invalidToken(description)
  }

  /**
   * An API token checked against its row and its account charged: a row read a moment ago, far
   * from the account's limit, costs no round trip; otherwise the row is read and the account
   * charged in one statement, and the answer remembered for the next calls.
   */
  async function checkAndCharge(secret: string): Promise<{ checked: SecretCheck; charge: Charge | undefined }> {
    const tokenId = apiTokenIdOf(secret)
    if (!tokenId) return { checked: { ok: false, reason: 'malformed' }, charge: undefined }
    const recent = recentApiToken(tokenId)
    const recentCheck = recent && checkApiToken(recent, secret)
    const local = recentCheck?.ok ? tally.charge(recentCheck.token.account_id) : undefined
    if (recentCheck && local) return { checked: recentCheck, charge: local }
    const found = await chargeApiToken(app.db, tokenId, secret)
    const checked = checkApiToken(found.token, secret)
    if (checked.ok) {
      rememberApiToken(checked.token)
      if (found.charge) tally.remember(checked.token.account_id, found.charge)
    }
    return { checked, charge: found.charge }
  }

  /** Who is calling and the charge of this call (for an API token read in the same round trip as the token). */
  async function identify(request: FastifyRequest, reply: FastifyReply): Promise<{ identity: Omit<Principal, 'plan'>; charge: Charge | undefined } | undefined> {
    const header = request.headers.authorization
    const secret = header && /^Bearer +(\S+)$/i.exec(header)?.[1]
    if (secret && looksLikeApiToken(secret)) {
      const { checked, charge } = await checkAndCharge(secret)
      if (!checked.ok) {
        request.log.info({ reason: checked.reason }, 'API token refused')
        throw refuseToken(reply, REASONS[checked.reason])
      }
      const { token } = checked
      touched(token.id, token.last_used_at)
      const identity = { accountId: token.account_id, tokenId: token.id, clientId: null, scopes: token.scopes.split(' ') }
      return { identity, charge }
    }
    await jwtGuard.call(app, request, reply)
    if (reply.sent || !request.auth) return undefined
    // An agent no person has claimed yet has no account to act for.
    if (!request.auth.accountId) throw refuseToken(reply, 'The access token does not act for an account')
    const { accountId, clientId, scopes } = request.auth
    return { identity: { accountId, tokenId: null, clientId, scopes }, charge: await chargeAccount(app.db, tally, accountId) }
  }

  return async function restAuthenticate(request, reply) {
    const caller = await identify(request, reply)
    // The bearer guard has answered (401 with its challenge): a hook that sent a reply returns it.
    if (!caller) return reply
    const { identity, charge } = caller
    if (!charge) throw refuseToken(reply, 'The account of this token no longer exists')
    request.principal = { ...identity, plan: charge.plan }
    rememberCharge(request, charge)
    setRateLimitHeaders(reply, charge)

    const config = request.routeOptions.config as RestRouteConfig
    if (!allows(charge.plan, 'read')) throw new errors.planRequired(`The ${charge.plan} plan has no REST API access; upgrade to plus or above`)
    if (charge.used > charge.limit) {
      reply.header('retry-after', String(Math.max(1, Math.ceil((charge.resetAt.getTime() - Date.now()) / 1000))))
      throw new errors.rateLimited()
    }
    if (config.scope && !identity.scopes.includes(config.scope)) {
      reply.header('www-authenticate', challenge({ error: 'insufficient_scope', error_description: `This call needs the scope ${config.scope}`, resource_metadata: metadata, scope: config.scope }))
      throw new errors.insufficientScope(`The token lacks the scope ${config.scope}`)
    }
    if (config.access === 'write' && !allows(charge.plan, 'write')) {
      throw new errors.planRequired(`The ${charge.plan} plan has read-only REST API access; changes need plan pro or above`)
    }
  }
}
