import type { Selectable } from 'kysely'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import type { SocialAccountsTable, SocialNetwork, SocialPostsTable } from '../../infra/tables.ts'
import type { Paging } from '../paging.ts'

/** The job that publishes one scheduled social post. */
export const SOCIAL_POST_JOB = 'social.post'

/** Characters a post may have on each network (Mastodon's default instance limit; Bluesky's 300 graphemes). */
export const LENGTH_LIMITS: Record<SocialNetwork, number> = { mastodon: 500, bluesky: 300 }

/** What Mastodon counts for every link, however long (StatusLengthValidator's URL placeholder). */
export const MASTODON_URL_LENGTH = 23

export type SocialAccountRow = Selectable<SocialAccountsTable>
export type SocialPostRow = Selectable<SocialPostsTable>

/** Mastodon: an access token of the instance; Bluesky: an app password of the handle. */
export type SocialCredentials = { network: 'mastodon'; accessToken: string } | { network: 'bluesky'; appPassword: string }

const credentialsContext = (id: string) => `social_accounts.credentials:${id}`

export async function connectSocialAccount(
  db: Db,
  keyring: Keyring,
  accountId: string,
  input: { serverUrl: string; handle: string; credentials: SocialCredentials },
): Promise<SocialAccountRow> {
  const id = newId('soc')
  return db
    .insertInto('social_accounts')
    .values({
      id,
      account_id: accountId,
      network: input.credentials.network,
      server_url: input.serverUrl.replace(/\/+$/, ''),
      handle: input.handle,
      credentials_sealed: keyring.seal(JSON.stringify(input.credentials), credentialsContext(id)),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function openCredentials(keyring: Keyring, row: SocialAccountRow): SocialCredentials {
  return JSON.parse(keyring.open(row.credentials_sealed, credentialsContext(row.id))) as SocialCredentials
}

export async function listSocialAccounts(db: Db, accountId: string, { limit, offset }: Paging) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('social_accounts')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('social_accounts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}

export async function findSocialAccount(db: Db, accountId: string, id: string): Promise<SocialAccountRow | undefined> {
  return db.selectFrom('social_accounts').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
}

export async function deleteSocialAccount(db: Db, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('social_accounts').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** The text as published: the link, when given, on its own line after the text. */
export function postText(text: string, link: string | null): string {
  return link ? `${text}\n\n${link}` : text
}

function graphemes(text: string): number {
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length
}

/** An http(s) link as Mastodon finds it in a status; trailing punctuation belongs to the sentence. */
const LINK = /https?:\/\/[^\s<>"]+?(?=[.,:;!?'")\]]*(?:\s|$))/giu
/** A remote mention (`@user@example.social`), which Mastodon counts as its local part (`@user`). */
const REMOTE_MENTION = /(^|[^\p{L}\p{N}_/])@([a-z0-9_]+)@[a-z0-9.-]*[a-z0-9]/giu

/**
 * Length as each network counts it. Both count user-perceived characters (graphemes); Mastodon
 * counts every link as 23 characters and a remote mention as its local part, Bluesky counts every
 * character of the text.
 */
export function postLength(text: string, network: SocialNetwork): number {
  if (network === 'bluesky') return graphemes(text)
  return graphemes(text.replace(LINK, 'x'.repeat(MASTODON_URL_LENGTH)).replace(REMOTE_MENTION, '$1@$2'))
}

/** Stores a scheduled post and its publishing job in the caller's transaction. */
export async function schedulePost(
  db: Db,
  accountId: string,
  input: { socialAccountId: string; siteId: string | null; text: string; link: string | null; scheduledAt: Date },
): Promise<SocialPostRow> {
  const row = await db
    .insertInto('social_posts')
    .values({
      id: newId('post'),
      account_id: accountId,
      social_account_id: input.socialAccountId,
      site_id: input.siteId,
      text: input.text,
      link: input.link,
      scheduled_at: input.scheduledAt,
      url: null,
      error: null,
      posted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  await enqueueJob(db, SOCIAL_POST_JOB, { post_id: row.id }, { runAt: input.scheduledAt, uniqueKey: row.id, maxAttempts: 5 })
  return row
}

export async function findPost(db: Db, accountId: string, id: string): Promise<SocialPostRow | undefined> {
  return db.selectFrom('social_posts').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
}

export async function listPosts(db: Db, accountId: string, { limit, offset }: Paging) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('social_posts')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('scheduled_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('social_posts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}
