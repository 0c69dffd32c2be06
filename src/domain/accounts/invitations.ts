import { newId, randomToken, sha256Hex, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { Mail, Mailer } from '../../infra/mailer.ts'
import type { AccountInvitationsTable } from '../../infra/tables.ts'
import type { Selectable } from 'kysely'
import { errors, withHeaders } from '../../errors.ts'
import { translator, type Translator } from '../i18n/translator.ts'
import { isLocale, type Locale } from '../locales.ts'
import { withTransaction } from '../transaction.ts'
import { normaliseEmail, type EmailHasher } from './email-lookup.ts'
import { addMember, roleOf, type Role } from './members.ts'
import { assertSeatForInvitation, assertSeatForMember } from './seats.ts'

/**
 * Invitations to an account (DESIGN.md 12, Teams): an owner invites a person by email with a role;
 * the mail carries a single-use link valid 7 days, whose secret is kept only as its SHA-256. The
 * invitee proves the address with the passwordless code, then joins. A pending invitation takes a
 * seat until it is accepted, withdrawn or expires.
 */
export const INVITATION_TTL_SECONDS = 7 * 86_400

/** Invitations mailed to one address by one account within the window: a new one replaces the last, so this bounds the mails. */
const MAILS_PER_ADDRESS = 5
const MAILS_WINDOW_SECONDS = 3600

/** `wpi_` and 43 random characters: what the link carries. */
const SECRET = /^wpi_[A-Za-z0-9_-]{43}$/
const EMAIL_FORMAT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export type InvitationRow = Selectable<AccountInvitationsTable>
export type InvitationState = 'pending' | 'accepted' | 'withdrawn' | 'expired'

export interface Invitation {
  id: string
  email: string
  role: Role
  state: InvitationState
  /** The member who invited (`usr_…`). */
  invited_by: string | null
  created_at: string
  expires_at: string
}

export function invitationState(
  row: Pick<InvitationRow, 'accepted_at' | 'withdrawn_at' | 'expires_at'>,
  now = new Date(),
): InvitationState {
  if (row.accepted_at) return 'accepted'
  if (row.withdrawn_at) return 'withdrawn'
  return row.expires_at <= now ? 'expired' : 'pending'
}

const sealContext = (id: string) => `account_invitations.email:${id}`

export function invitationEmail(keyring: Keyring, row: Pick<InvitationRow, 'id' | 'email_sealed'>): string {
  return keyring.open(row.email_sealed, sealContext(row.id))
}

function toInvitation(keyring: Keyring, row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: invitationEmail(keyring, row),
    role: row.role,
    state: invitationState(row),
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  }
}

/** The address of a person, opened from its seal. */
async function personEmail(db: Db, keyring: Keyring, userId: string | null): Promise<string | null> {
  if (!userId) return null
  const user = await db.selectFrom('users').select(['id', 'email_sealed']).where('id', '=', userId).executeTakeFirst()
  return user ? keyring.open(user.email_sealed, `users.email:${user.id}`) : null
}

export interface InvitationDeps {
  keyring: Keyring
  emailHash: EmailHasher
  /** BASE_URL: the link points at its /join page. */
  baseUrl: string
}

export interface NewInvitation {
  accountId: string
  email: string
  role: Role
  /** The owner who invites. */
  invitedBy: string | null
  /** The language of the inviter's request: the mail's, unless the invitee chose one already. */
  language?: Locale | undefined
}

/** The link of an invitation: the page that explains it and lets the invitee accept. */
export function invitationLink(baseUrl: string, secret: string): string {
  return `${baseUrl}/join?token=${encodeURIComponent(secret)}`
}

/** An invitation just stored, with the mail that carries its link (sent once the transaction committed: `mailInvitation`). */
export interface NewlyInvited {
  invitation: Invitation
  mail: Mail
}

/**
 * Invites a person (call in the transaction that records the action): refused when the address
 * is not valid (400), the person is a member already (409 conflict), the address was invited 5
 * times within the hour (429), or no seat is free (403 plan_limit with the upgrade path). An
 * earlier pending invitation of the same address is withdrawn: the new link replaces it.
 */
export async function inviteMember(trx: Db, deps: InvitationDeps, input: NewInvitation): Promise<NewlyInvited> {
  const email = normaliseEmail(input.email)
  if (!EMAIL_FORMAT.test(email) || email.length > 254) throw new errors.validationFailed('Enter a valid email address')
  const emailHash = deps.emailHash(email)
  const member = await trx
    .selectFrom('users')
    .innerJoin('account_members', 'account_members.user_id', 'users.id')
    .select('users.id')
    .where('users.email_hash', '=', emailHash)
    .where('account_members.account_id', '=', input.accountId)
    .executeTakeFirst()
  if (member) throw new errors.conflict(`${email} is a member of this account already`)
  const invitee = await trx.selectFrom('users').select('language').where('email_hash', '=', emailHash).executeTakeFirst()
  const recent = await trx
    .selectFrom('account_invitations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', input.accountId)
    .where('email_hash', '=', emailHash)
    .where('created_at', '>', new Date(Date.now() - MAILS_WINDOW_SECONDS * 1000))
    .executeTakeFirstOrThrow()
  if (Number(recent.n) >= MAILS_PER_ADDRESS) {
    throw withHeaders(new errors.rateLimited(`${email} was invited ${MAILS_PER_ADDRESS} times in the last hour; try again later`), {
      'retry-after': String(MAILS_WINDOW_SECONDS),
    })
  }
  await trx
    .updateTable('account_invitations')
    .set({ withdrawn_at: new Date() })
    .where('account_id', '=', input.accountId)
    .where('email_hash', '=', emailHash)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .execute()
  await assertSeatForInvitation(trx, input.accountId)
  const id = newId('inv')
  const secret = `wpi_${randomToken(32)}`
  const row = await trx
    .insertInto('account_invitations')
    .values({
      id,
      account_id: input.accountId,
      email_hash: emailHash,
      email_sealed: deps.keyring.seal(email, sealContext(id)),
      role: input.role,
      secret_hash: sha256Hex(secret),
      invited_by: input.invitedBy,
      expires_at: new Date(Date.now() + INVITATION_TTL_SECONDS * 1000),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  const inviter = await personEmail(trx, deps.keyring, input.invitedBy)
  return {
    invitation: toInvitation(deps.keyring, row),
    mail: {
      to: email,
      ...invitationMail(translator(isLocale(invitee?.language) ? invitee.language : (input.language ?? 'en')), deps.baseUrl, secret, {
        inviter,
        role: input.role,
        expiresAt: row.expires_at,
      }),
    },
  }
}

/**
 * Sends an invitation's mail after its transaction committed. When it cannot be sent the
 * invitation is withdrawn (its seat freed) and 503 says to try again: no link is pending that
 * nobody received.
 */
export async function mailInvitation(db: Db, mailer: Mailer, invited: NewlyInvited): Promise<Invitation> {
  try {
    await mailer.send(invited.mail)
    return invited.invitation
  } catch {
    await db
      .updateTable('account_invitations')
      .set({ withdrawn_at: new Date() })
      .where('id', '=', invited.invitation.id)
      .where('accepted_at', 'is', null)
      .execute()
    throw new errors.serviceUnavailable('The invitation mail could not be sent; nothing was kept. Try again in a moment')
  }
}

/** The invitation's mail in the invitee's language: who invites, as what, the link and until when it works. */
export function invitationMail(
  t: Translator,
  baseUrl: string,
  secret: string,
  about: { inviter: string | null; role: Role; expiresAt: Date },
): { subject: string; text: string } {
  const who = about.inviter ?? t.t('mail.invitation.someone')
  return {
    subject: t.t('mail.invitation.subject', { who }),
    text: t.t('mail.invitation.text', {
      who,
      role: t.t(`mail.invitation.role.${about.role}`),
      until: t.dateTime(about.expiresAt),
      link: invitationLink(baseUrl, secret),
    }),
  }
}

/** The account's pending invitations, newest first. */
export async function listPendingInvitations(db: Db, keyring: Keyring, accountId: string): Promise<Invitation[]> {
  const rows = await db
    .selectFrom('account_invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', new Date())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
  return rows.map((row) => toInvitation(keyring, row))
}

/** Withdraws a pending invitation of the account; its link then says so. 404 when there is no such pending invitation. */
export async function withdrawInvitation(db: Db, accountId: string, id: string): Promise<void> {
  const withdrawn = await db
    .updateTable('account_invitations')
    .set({ withdrawn_at: new Date() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning('id')
    .executeTakeFirst()
  if (!withdrawn) throw new errors.notFound('There is no such pending invitation in this account')
}

export interface FoundInvitation {
  row: InvitationRow
  state: InvitationState
  email: string
  inviter: string | null
}

/** The invitation a link's secret names, with its state; undefined for a secret that names none. */
export async function invitationBySecret(db: Db, keyring: Keyring, secret: string): Promise<FoundInvitation | undefined> {
  if (!SECRET.test(secret)) return undefined
  const row = await db.selectFrom('account_invitations').selectAll().where('secret_hash', '=', sha256Hex(secret)).executeTakeFirst()
  if (!row) return undefined
  return { row, state: invitationState(row), email: invitationEmail(keyring, row), inviter: await personEmail(db, keyring, row.invited_by) }
}

/** Why an invitation link cannot be used: what its page says. */
export class InvitationUnusable extends Error {
  readonly state: Exclude<InvitationState, 'pending'> | 'unknown' | 'other_person'

  constructor(state: InvitationUnusable['state']) {
    super(`The invitation is ${state}`)
    this.state = state
  }
}

/**
 * Uses an invitation once, for the person who proved its address (`emailHash` of their sign-in):
 * they become a member with its role (a member already keeps their role), if a seat is free.
 * Throws InvitationUnusable when the link is used, withdrawn, expired or meant for another address,
 * 403 plan_limit when every seat is taken. Answers the account and the role.
 */
export async function acceptInvitation(
  db: Db,
  secret: string,
  person: { userId: string; emailHash: string },
): Promise<{ accountId: string; role: Role }> {
  if (!SECRET.test(secret)) throw new InvitationUnusable('unknown')
  return withTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom('account_invitations')
      .selectAll()
      .where('secret_hash', '=', sha256Hex(secret))
      .forUpdate()
      .executeTakeFirst()
    if (!row) throw new InvitationUnusable('unknown')
    const state = invitationState(row)
    if (state !== 'pending') throw new InvitationUnusable(state)
    if (row.email_hash !== person.emailHash) throw new InvitationUnusable('other_person')
    const already = await roleOf(trx, row.account_id, person.userId)
    if (!already) await assertSeatForMember(trx, row.account_id)
    const role = already ?? (await addMember(trx, row.account_id, person.userId, row.role))
    await trx
      .updateTable('account_invitations')
      .set({ accepted_at: new Date(), accepted_by: person.userId })
      .where('id', '=', row.id)
      .execute()
    return { accountId: row.account_id, role }
  })
}
