import * as cheerio from 'cheerio'
import { expect } from 'vitest'
import type { FastifyInstance as App } from 'fastify'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { loadEmailHasher } from '../../src/domain/accounts/email-lookup.ts'
import { addMember, type Role } from '../../src/domain/accounts/members.ts'
import { API_SCOPES, createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import { newId, randomToken, sha256Hex } from '../../src/infra/crypto.ts'
import { signAccessToken } from '../../src/identity/oauth/access-tokens.ts'
import { findOrCreateUser } from '../../src/identity/stores/users.ts'

/** One member of a team, with every credential a member has: an API token, a claimed agent's MCP token, a dashboard session. */
export interface TeamMember {
  role: Role
  userId: string
  email: string
  /** Authorization header of the member's own API token (every scope). */
  api: { authorization: string }
  tokenId: string
  /** An access token for /mcp of an agent this member claimed (mcp:read mcp:tools). */
  mcp: string
  /** The dashboard session cookie, working in the team's account. */
  cookie: string
}

export interface Team {
  accountId: string
  owner: TeamMember
  editor: TeamMember
  viewer: TeamMember
}

/** A person, created as a first sign-in makes them (joining `accountId` when given, without an account of their own). */
export async function person(app: App, email: string, joining?: string) {
  const hash = (await loadEmailHasher(app.db, app.keyring))(email)
  return findOrCreateUser(app.db, app.keyring, hash, email, joining ? { joining } : {})
}

/** A browser session of the person, working in `accountId`. */
export async function sessionCookie(app: App, userId: string, accountId: string | null): Promise<string> {
  const token = randomToken(32)
  await app.db
    .insertInto('web_sessions')
    .values({
      id: newId('ses'),
      token_hash: sha256Hex(token),
      user_id: userId,
      account_id: accountId,
      expires_at: new Date(Date.now() + 3_600_000),
    })
    .execute()
  return `wps_session=${token}`
}

/** An agent the person claimed for the account, and its access token for /mcp. */
export async function claimedAgentToken(app: App, userId: string, accountId: string): Promise<string> {
  const id = newId('reg')
  await app.db
    .insertInto('agent_registrations')
    .values({
      id,
      status: 'claimed',
      claim_token_hash: sha256Hex(randomToken(16)),
      expires_at: new Date(Date.now() + 86_400_000),
      user_id: userId,
      account_id: accountId,
      claimed_at: new Date(),
    })
    .execute()
  const { token } = await signAccessToken(app.signer, {
    subject: id,
    clientId: id,
    audience: `${app.config.BASE_URL}/mcp`,
    scope: ['mcp:read', 'mcp:tools'],
    accountId,
  })
  return token
}

async function credentials(app: App, accountId: string, role: Role, user: { id: string; email: string }): Promise<TeamMember> {
  const { token, secret } = await createApiToken(app.db, { accountId, userId: user.id, name: `${role}'s token`, scopes: API_SCOPES })
  return {
    role,
    userId: user.id,
    email: user.email,
    api: { authorization: `Bearer ${secret}` },
    tokenId: token.id,
    mcp: await claimedAgentToken(app, user.id, accountId),
    cookie: await sessionCookie(app, user.id, accountId),
  }
}

/** An account on `plan` with an owner (its first person), an editor and a viewer who joined it. */
export async function makeTeam(app: App, plan: Plan, name = newId('t').slice(-8).toLowerCase()): Promise<Team> {
  const first = await person(app, `owner-${name}@example.com`)
  await updateAccount(app.db, first.accountId, { plan })
  const accountId = first.accountId
  const members: Partial<Record<Role, TeamMember>> = { owner: await credentials(app, accountId, 'owner', first) }
  for (const role of ['editor', 'viewer'] as const) {
    const joined = await person(app, `${role}-${name}@example.com`, accountId)
    expect(await addMember(app.db, accountId, joined.id, role)).toBe(role)
    members[role] = await credentials(app, accountId, role, joined)
  }
  return { accountId, owner: members.owner!, editor: members.editor!, viewer: members.viewer! }
}

/**
 * A member's browser over HTTP, without script: sends the member's session cookie and keeps the
 * CSRF cookie the pages set; answers pages parsed, and a form's post as its status and location.
 */
export function memberBrowser(base: string, member: TeamMember) {
  let cookie = member.cookie
  const keep = (res: Response) => {
    const set = res.headers.getSetCookie().map((line) => line.split(';')[0]!)
    if (set.length) cookie = `${member.cookie}; ${set.join('; ')}`
  }
  return {
    async get(path: string) {
      const res = await fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' })
      keep(res)
      return { status: res.status, $: cheerio.load(await res.text()) }
    },
    async post(path: string, form: Record<string, string>) {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      })
      return { status: res.status, location: res.headers.get('location') }
    },
  }
}
