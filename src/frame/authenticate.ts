import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { accountById } from '../domain/accounts/accounts.ts'
import { apiTokenIdOf, checkApiToken, findApiToken, looksLikeApiToken, type SecretCheck } from '../domain/accounts/api-tokens.ts'
import { actingMember } from '../domain/accounts/members.ts'
import { changeSequence } from '../domain/accounts/changes.ts'
import { chargeApiToken, type Charge } from '../domain/accounts/quota.ts'
import { chargeAccount, QuotaTally } from '../domain/accounts/quota-tally.ts'
import { errors, withHeaders } from '../errors.ts'
import { challenge, rememberedBearer, resourceMetadataUrl, verifyBearer, type BearerAuth } from './bearer.ts'
import { LastUsedRecorder } from './last-used.ts'
import { MemberRoles, type Acting } from './member-roles.ts'
import type { ApiPrincipal } from './principal.ts'
import { setRateLimitHeaders } from './rate-limit-headers.ts'
import { ApiTokenCache, FRESH_MS, type TokenReading } from './token-cache.ts'

/** Age at which a token's reading is read again by the next call, the others still served from it. */
const REFRESH_AFTER_MS = FRESH_MS * 0.75
import type { Role } from '../domain/accounts/members.ts'

/** A presented API token as checked, with its account's charge and its maker's role. */
interface TokenCheck {
  checked: SecretCheck
  charge: Charge | undefined
  role: Role | null
}

export interface AuthenticateOptions {
  /** The resource the credential must be for: `${API_URL}/v1`, `${BASE_URL}/mcp`. */
  audience: string
}

const REASONS = {
  malformed: 'The API token is malformed',
  unknown: 'The API token is invalid',
  revoked: 'The API token has been revoked',
  expired: 'The API token has expired',
} as const

/** 401 invalid_token with the resource's challenge (RFC 6750 3). */
function invalidToken(audience: string, description: string): Error {
  const header = challenge({ error: 'invalid_token', error_description: description, resource_metadata: resourceMetadataUrl(audience) })
  return withHeaders(new errors.invalidToken(description), { 'www-authenticate': header })
}

/** 403 account_suspended: the account waits to be erased (DESIGN.md 19); an owner restores it in the dashboard. */
function suspended(accountId: string): Error {
  return new errors.accountSuspended(
    `The account ${accountId} is being deleted: its credentials answer nothing until an owner restores it in the dashboard`,
  )
}

/**
 * Who an API call speaks for, charged one call against its account's hour. Owns the state this
 * needs: the quota tally, the API token cache and the last-used recorder.
 */
export class Authenticator {
  readonly #app: FastifyInstance
  readonly tally: QuotaTally
  readonly #tokens = new ApiTokenCache()
  readonly #lastUsed: LastUsedRecorder
  readonly #members: MemberRoles
  /** Readings of a token under way, by token id (settled, never rejected). */
  readonly #reading = new Map<string, Promise<void>>()

  constructor(app: FastifyInstance) {
    this.#app = app
    this.tally = new QuotaTally(app.db, app.log)
    this.#lastUsed = new LastUsedRecorder(app.db, app.log)
    this.#members = new MemberRoles(app.db)
  }

  /**
   * API tokens (`wps_…`) are checked against their row; OAuth access tokens by the bearer guard
   * (a token the room's own guard verified for this audience in this request is not verified
   * again). Either way a bad or missing credential throws 401 with a WWW-Authenticate challenge.
   * With a reply, every answer to the identified account carries the rate-limit headers.
   *
   * A credential whose every answer is in memory (a busy token's usual case) is answered without
   * a promise: call it from an async function, which turns a refusal thrown at once into its
   * rejection. The chain of promises for answers already known was a measurable share of a call.
   */
  authenticate(request: FastifyRequest, reply: FastifyReply | null, options: AuthenticateOptions): ApiPrincipal | Promise<ApiPrincipal> {
    const { audience } = options
    const secret = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
    const found = secret && looksLikeApiToken(secret) ? this.#apiToken(request, secret, audience) : this.#oauth(request, audience)
    if (!reply) return found
    if (found instanceof Promise) {
      return found.then((principal) => {
        setRateLimitHeaders(reply, principal.quota)
        return principal
      })
    }
    setRateLimitHeaders(reply, found.quota)
    return found
  }

  /**
   * A token acts as the member who made it, with their role as it is now (a token the operator
   * made for the account acts as its owner); a member who left the account takes their tokens'
   * access with them.
   */
  #apiToken(request: FastifyRequest, secret: string, audience: string): ApiPrincipal | Promise<ApiPrincipal> {
    const tokenId = apiTokenIdOf(secret)
    const known = tokenId && this.#knownToken(tokenId, secret)
    if (known) return this.#tokenPrincipal(request, known, audience)
    return this.#checkAndCharge(tokenId, secret).then((checked) => this.#tokenPrincipal(request, checked, audience))
  }

  #tokenPrincipal(request: FastifyRequest, { checked, charge, role: memberRole }: TokenCheck, audience: string): ApiPrincipal {
    if (!checked.ok) {
      request.log.info({ reason: checked.reason }, 'API token refused')
      throw invalidToken(audience, REASONS[checked.reason])
    }
    const { token } = checked
    if (!charge) throw invalidToken(audience, 'The account of this token no longer exists')
    if (charge.suspended) throw suspended(token.account_id)
    const role: Role | null = token.user_id === null ? 'owner' : memberRole
    if (!role) throw invalidToken(audience, 'The member who made this API token no longer belongs to the account')
    this.#lastUsed.used(token.id, token.last_used_at)
    return {
      kind: 'api_token',
      accountId: token.account_id,
      plan: charge.plan,
      scopes: token.scopes.split(' '),
      quota: charge,
      audience,
      tokenId: token.id,
      clientId: null,
      userId: token.user_id,
      role,
    }
  }

  /**
   * The token's reading from memory when it is fresh and its account far from the limit, charged
   * in the tally; undefined when the database must answer. A reading near the end of its second
   * is read again by one call while the others still use it, so a busy token's calls do not all
   * find it stale at once and wait.
   */
  #knownToken(tokenId: string, secret: string): TokenCheck | undefined {
    const cached = this.#tokens.get(tokenId)
    const refresh = cached !== undefined && !this.#reading.has(tokenId) && Date.now() - cached.readAt > REFRESH_AFTER_MS
    return refresh ? undefined : this.#fromCache(tokenId, secret)
  }

  /**
   * The one check of a presented API token (`checkApiToken`) and the charge of its account, when
   * memory cannot answer: the row is read and the account charged in one statement (which charges
   * only for a live, matching secret, so a wrong one cannot spend an account's hour), and the
   * answer kept for the next calls.
   */
  async #checkAndCharge(tokenId: string | undefined, secret: string): Promise<TokenCheck> {
    if (!tokenId) return { checked: { ok: false, reason: 'malformed' }, charge: undefined, role: null }
    // The calls that find the reading stale together wait for one reading instead of each reading
    // the token and charging the account's one counter row, where they queued for each other's
    // row lock: the slowest calls of a busy token.
    const reading = this.#reading.get(tokenId)
    if (reading) {
      await reading
      const joined = this.#fromCache(tokenId, secret)
      if (joined) return joined
    }
    const seen = changeSequence()
    const read = chargeApiToken(this.#app.db, tokenId, secret)
    const settled = read.then(
      () => {},
      () => {},
    )
    this.#reading.set(tokenId, settled)
    try {
      const found = await read
      const checked = checkApiToken(found.token, secret)
      if (checked.ok) this.#remember({ row: checked.token, role: found.role }, found.charge, seen)
      return { checked, charge: found.charge, role: found.role }
    } finally {
      if (this.#reading.get(tokenId) === settled) this.#reading.delete(tokenId)
    }
  }

  /** A live token of this secret read a moment ago, charged in the tally; undefined when the database must answer. */
  #fromCache(tokenId: string, secret: string): TokenCheck | undefined {
    const cached = this.#tokens.get(tokenId)
    const cachedCheck = cached && checkApiToken(cached.row, secret)
    // A refusal is never taken from the cache: the secret may have been rotated elsewhere a moment ago.
    if (!cached || !cachedCheck?.ok) return undefined
    const local = this.tally.charge(cachedCheck.token.account_id)
    return local && { checked: cachedCheck, charge: local, role: cached.role }
  }

  #remember(reading: TokenReading, charge: Charge | undefined, seen: number): void {
    this.#tokens.remember(reading, seen)
    if (charge) this.tally.remember(reading.row.account_id, charge, Date.now(), seen)
  }

  #oauth(request: FastifyRequest, audience: string): ApiPrincipal | Promise<ApiPrincipal> {
    const known = request.auth?.audience === audience ? request.auth : rememberedBearer(request, { audience })
    if (!known) return verifyBearer(request, { audience }).then((auth) => this.#oauthFor(request, auth))
    return this.#oauthFor(request, known)
  }

  #oauthFor(request: FastifyRequest, auth: BearerAuth): ApiPrincipal | Promise<ApiPrincipal> {
    request.auth = auth
    const { accountId, audience } = auth
    // An agent no person has claimed yet has no account to act for.
    if (!accountId) throw invalidToken(audience, 'The access token does not act for an account')
    const charge = this.tally.charge(accountId)
    const member = this.#members.known(accountId, auth.subject)
    if (charge && member) return this.#oauthPrincipal(auth, accountId, charge, member.acting)
    return Promise.all([
      charge ?? chargeAccount(this.#app.db, this.tally, accountId),
      member?.acting ?? this.#members.of(accountId, auth.subject),
    ]).then(([charged, acting]) => this.#oauthPrincipal(auth, accountId, charged, acting))
  }

  #oauthPrincipal(auth: BearerAuth, accountId: string, charge: Charge | undefined, acting: Acting | undefined): ApiPrincipal {
    const { audience } = auth
    if (!charge) throw invalidToken(audience, 'The account of this token no longer exists')
    if (charge.suspended) throw suspended(accountId)
    if (!acting) throw invalidToken(audience, 'The person of this access token no longer belongs to the account')
    return {
      kind: 'oauth',
      accountId,
      plan: charge.plan,
      scopes: auth.scopes,
      quota: charge,
      audience,
      tokenId: null,
      clientId: auth.clientId,
      subject: auth.subject,
      ...acting,
    }
  }

  /**
   * Who a credential presented earlier speaks for now, read from the database (no cache, no call
   * charged): for a connection that outlives its request, such as a GraphQL subscription, looked at
   * again while it stays open. Throws the refusal `authenticate` would give; the principal keeps
   * the charge of the call that opened the connection.
   */
  async current(request: FastifyRequest, opened: ApiPrincipal): Promise<ApiPrincipal> {
    const { db } = this.#app
    const { audience } = opened
    const secret = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? ''
    let accountId: string
    let subject: string | null
    let scopes: string[]
    if (opened.kind === 'api_token') {
      const row = await findApiToken(db, opened.accountId, opened.tokenId)
      const checked = row ? checkApiToken(row, secret) : ({ ok: false, reason: 'revoked' } as const)
      if (!checked.ok) throw invalidToken(audience, REASONS[checked.reason])
      accountId = checked.token.account_id
      subject = checked.token.user_id
      scopes = checked.token.scopes.split(' ')
    } else {
      const auth = await verifyBearer(request, { audience })
      if (auth.accountId !== opened.accountId) throw invalidToken(audience, 'The access token does not act for this account')
      accountId = opened.accountId
      subject = auth.subject
      scopes = auth.scopes
    }
    const account = await accountById(db, accountId)
    if (!account) throw invalidToken(audience, 'The account of this token no longer exists')
    if (account.deletion_requested_at !== null) throw suspended(accountId)
    const acting = subject === null ? { userId: null, role: 'owner' as const } : await actingMember(db, accountId, subject)
    if (!acting) throw invalidToken(audience, 'The member of this credential no longer belongs to the account')
    return { ...opened, plan: account.plan, scopes, quota: { ...opened.quota, plan: account.plan }, ...acting } as ApiPrincipal
  }

  async close(): Promise<void> {
    await this.#lastUsed.close()
    await this.tally.flush()
  }
}
