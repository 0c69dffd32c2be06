import { sha256Hex, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { SafeFetcher } from '../../infra/fetcher.ts'
import { PublishError, postJson } from './http.ts'
import type { SocialAccountRow } from './social.ts'

/**
 * Bluesky sessions, reused: com.atproto.server.createSession is rate-limited per handle (30 in
 * 5 minutes and 100 to 300 a day on bsky.social), so a session is made once and kept with the social
 * account, sealed, for every post and every instance:
 * - a stored session whose access JWT is good for another minute is used as it is;
 * - one about to expire is renewed with com.atproto.server.refreshSession (the refresh JWT as
 *   bearer; the answer carries a new access and refresh JWT, the old refresh JWT is spent);
 * - createSession only when there is none, the stored one belongs to other credentials, or the
 *   refresh JWT is refused (400 ExpiredToken or InvalidToken, 401);
 * - a write refused with ExpiredToken or InvalidToken (a clock ahead of ours, a session revoked)
 *   renews the session once and writes again.
 * One process asks for one account's session once at a time; two instances that renew at once
 * both get a working session (the PDS lets a spent refresh JWT be used again for a while) and the
 * last one stored is kept.
 */

export interface BlueskySession {
  did: string
  accessJwt: string
  refreshJwt: string
}

interface StoredSession extends BlueskySession {
  /** Digest of the server, handle and app password the session was made with. */
  credentials: string
}

export interface SessionDeps {
  db: Db
  keyring: Keyring
  fetcher: SafeFetcher
}

/** Renew this long before the access JWT's `exp`, so a write does not meet an expired token. */
const EXPIRY_MARGIN_SECONDS = 60

const sessionContext = (id: string) => `social_accounts.session:${id}`
const credentialsDigest = (account: SocialAccountRow, appPassword: string) =>
  sha256Hex(`${account.server_url}\n${account.handle}\n${appPassword}`)

/** An answer that says the token itself is no good (expired, revoked, not ours); a retry with the same token cannot change it. */
export function tokenRefused(error: unknown): boolean {
  return (
    error instanceof PublishError &&
    (error.status === 401 || (error.status === 400 && (error.code === 'ExpiredToken' || error.code === 'InvalidToken')))
  )
}

/** The `exp` of a JWT in seconds, read without verifying it (it is the PDS's own token); undefined when it has none. */
function expiresAt(jwt: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown }
    return typeof payload.exp === 'number' ? payload.exp : undefined
  } catch {
    return undefined
  }
}

function sessionOf(answer: Record<string, unknown>, procedure: string): BlueskySession {
  const { did, accessJwt, refreshJwt } = answer
  if (typeof did !== 'string' || typeof accessJwt !== 'string' || typeof refreshJwt !== 'string')
    throw new PublishError(`the server answered ${procedure} without a session`, true)
  return { did, accessJwt, refreshJwt }
}

function readStored(deps: SessionDeps, account: SocialAccountRow, sealed: string | null, credentials: string): BlueskySession | undefined {
  if (!sealed) return undefined
  try {
    const stored = JSON.parse(deps.keyring.open(sealed, sessionContext(account.id))) as StoredSession
    return stored.credentials === credentials ? { did: stored.did, accessJwt: stored.accessJwt, refreshJwt: stored.refreshJwt } : undefined
  } catch {
    return undefined
  }
}

async function store(deps: SessionDeps, account: SocialAccountRow, session: BlueskySession, credentials: string): Promise<BlueskySession> {
  const sealed = deps.keyring.seal(JSON.stringify({ ...session, credentials } satisfies StoredSession), sessionContext(account.id))
  await deps.db.updateTable('social_accounts').set({ session_sealed: sealed }).where('id', '=', account.id).execute()
  return session
}

async function createSession(deps: SessionDeps, account: SocialAccountRow, appPassword: string): Promise<BlueskySession> {
  const answer = await postJson(deps.fetcher, `${account.server_url}/xrpc/com.atproto.server.createSession`, {
    identifier: account.handle,
    password: appPassword,
  })
  return sessionOf(answer, 'createSession')
}

/** A refreshed session, or undefined when the refresh JWT is refused; other failures (the PDS away) are thrown for a retry. */
async function refreshSession(deps: SessionDeps, account: SocialAccountRow, session: BlueskySession): Promise<BlueskySession | undefined> {
  try {
    const answer = await postJson(deps.fetcher, `${account.server_url}/xrpc/com.atproto.server.refreshSession`, undefined, {
      authorization: `Bearer ${session.refreshJwt}`,
    })
    return sessionOf(answer, 'refreshSession')
  } catch (error) {
    if (tokenRefused(error)) return undefined
    throw error
  }
}

const inFlight = new Map<string, Promise<BlueskySession>>()

/** One request per account at a time in this process; callers meanwhile share its answer. */
function once(accountId: string, work: () => Promise<BlueskySession>): Promise<BlueskySession> {
  const running = inFlight.get(accountId)
  if (running) return running
  const started = work().finally(() => inFlight.delete(accountId))
  inFlight.set(accountId, started)
  return started
}

/**
 * A session to write with: the stored one while its access JWT is good, else renewed. `refused`
 * is a session a write was just refused with: it is renewed even if it looks good.
 */
export function blueskySession(
  deps: SessionDeps,
  account: SocialAccountRow,
  appPassword: string,
  refused?: BlueskySession,
): Promise<BlueskySession> {
  return once(account.id, async () => {
    const credentials = credentialsDigest(account, appPassword)
    const row = await deps.db.selectFrom('social_accounts').select('session_sealed').where('id', '=', account.id).executeTakeFirst()
    const stored = readStored(deps, account, row?.session_sealed ?? null, credentials)
    if (stored && stored.accessJwt !== refused?.accessJwt) {
      const exp = expiresAt(stored.accessJwt)
      if (exp === undefined || exp - Date.now() / 1000 > EXPIRY_MARGIN_SECONDS) return stored
    }
    const renewed = stored ? await refreshSession(deps, account, stored) : undefined
    return store(deps, account, renewed ?? (await createSession(deps, account, appPassword)), credentials)
  })
}
