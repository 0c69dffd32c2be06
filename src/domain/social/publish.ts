import { createHash } from 'node:crypto'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { SafeFetcher } from '../../infra/fetcher.ts'
import type { NamedJob } from '../../infra/jobs.ts'
import { blueskySession, tokenRefused, type BlueskySession } from './bluesky-session.ts'
import { recordEvent } from '../webhooks/events.ts'
import { PublishError, postJson } from './http.ts'
import { openCredentials, postText, SOCIAL_POST_JOB, type SocialAccountRow, type SocialPostRow } from './social.ts'

const POST_ATTEMPTS = 5

/**
 * Publishes scheduled posts through each network's own API, every call through the SSRF-safe
 * fetcher (the server URL is the customer's):
 * - Mastodon: POST {instance}/api/v1/statuses with the account's bearer token and an
 *   Idempotency-Key (the post id), so a retried job does not post twice;
 * - Bluesky: the account's session (bluesky-session.ts: made once with the handle and app
 *   password, refreshed when it expires), then com.atproto.repo.putRecord of an
 *   app.bsky.feed.post under a record key derived from the post (postRecordKey), the link
 *   marked as a link facet. The record is the same on every try, so a
 *   retry after an answer that never came writes nothing new (the PDS answers a put of the same
 *   record as a no-op); createRecord would post twice, or answer 500 for a key that exists.
 * A post that went out fires social.posted with its public URL in the same transaction that
 * marks it posted.
 */

async function publishMastodon(fetcher: SafeFetcher, account: SocialAccountRow, accessToken: string, post: SocialPostRow): Promise<string> {
  const status = await postJson(
    fetcher,
    `${account.server_url}/api/v1/statuses`,
    { status: postText(post.text, post.link), visibility: 'public' },
    { authorization: `Bearer ${accessToken}`, 'idempotency-key': post.id },
  )
  if (typeof status['url'] !== 'string') throw new PublishError('the instance answered without the status URL', true)
  return status['url']
}

/** A link facet over the link's UTF-8 bytes, so Bluesky shows it as a link. */
function linkFacet(text: string, link: string) {
  const byteStart = Buffer.byteLength(text.slice(0, text.lastIndexOf(link)))
  return {
    index: { byteStart, byteEnd: byteStart + Buffer.byteLength(link) },
    features: [{ $type: 'app.bsky.richtext.facet#link', uri: link }],
  }
}

/** The sortable base32 alphabet of atproto TIDs. */
const TID_ALPHABET = '234567abcdefghijklmnopqrstuvwxyz'

/**
 * The record key of a post on Bluesky: a TID (atproto's timestamp identifier: 53 bits of
 * microseconds since the epoch, then a 10-bit clock id, in 13 sortable base32 characters) of the
 * post's scheduled time, its sub-millisecond digits and clock id taken from the post id. The same
 * post always gets the same key, so retries address the one record.
 */
export function postRecordKey(postId: string, at: Date): string {
  const digest = createHash('sha256').update(postId).digest()
  const micros = BigInt(at.getTime()) * 1000n + BigInt(digest.readUInt16BE(0) % 1000)
  let value = (micros << 10n) | BigInt(digest.readUInt16BE(2) & 0x3ff)
  let key = ''
  for (let i = 0; i < 13; i++) {
    key = TID_ALPHABET[Number(value & 31n)]! + key
    value >>= 5n
  }
  return key
}

async function publishBluesky(deps: PublishDeps, account: SocialAccountRow, appPassword: string, post: SocialPostRow): Promise<string> {
  const { db, fetcher } = deps
  // The post's language is its site's default locale; a post of no site declares none.
  const site = post.site_id
    ? await db.selectFrom('sites').select('default_locale').where('id', '=', post.site_id).executeTakeFirst()
    : undefined
  const text = postText(post.text, post.link)
  const record = {
    $type: 'app.bsky.feed.post',
    text,
    createdAt: post.scheduled_at.toISOString(),
    ...(site ? { langs: [site.default_locale] } : {}),
    ...(post.link ? { facets: [linkFacet(text, post.link)] } : {}),
  }
  const rkey = postRecordKey(post.id, post.scheduled_at)
  const put = (session: BlueskySession) =>
    postJson(
      fetcher,
      `${account.server_url}/xrpc/com.atproto.repo.putRecord`,
      { repo: session.did, collection: 'app.bsky.feed.post', rkey, record },
      { authorization: `Bearer ${session.accessJwt}` },
    )
  const session = await blueskySession(deps, account, appPassword)
  const written = await put(session).catch(async (error: unknown) => {
    if (!tokenRefused(error)) throw error
    return put(await blueskySession(deps, account, appPassword, session))
  })
  const uri = typeof written['uri'] === 'string' ? written['uri'] : ''
  if (!uri.startsWith('at://') || uri.split('/').at(-1) !== rkey)
    throw new PublishError('the server answered putRecord without the record URI', true)
  return `https://bsky.app/profile/${account.handle}/post/${rkey}`
}

export interface PublishDeps {
  db: Db
  keyring: Keyring
  fetcher: SafeFetcher
}

/** Publishes a scheduled post once; `final` marks the job's last try, after which a failure is kept. */
export async function publishPost(deps: PublishDeps, postId: string, final: boolean): Promise<void> {
  const { db, keyring, fetcher } = deps
  const post = await db.selectFrom('social_posts').selectAll().where('id', '=', postId).executeTakeFirst()
  if (!post || post.state !== 'scheduled') return
  const account = await db.selectFrom('social_accounts').selectAll().where('id', '=', post.social_account_id).executeTakeFirst()
  if (!account) {
    await db
      .updateTable('social_posts')
      .set({ state: 'failed', error: 'the social account was removed' })
      .where('id', '=', post.id)
      .execute()
    return
  }
  await db
    .updateTable('social_posts')
    .set({ attempts: post.attempts + 1 })
    .where('id', '=', post.id)
    .execute()
  let url: string
  try {
    const credentials = openCredentials(keyring, account)
    url =
      credentials.network === 'mastodon'
        ? await publishMastodon(fetcher, account, credentials.accessToken, post)
        : await publishBluesky(deps, account, credentials.appPassword, post)
  } catch (error) {
    const retryable = !(error instanceof PublishError) || error.retryable
    if (!retryable || final) {
      await db
        .updateTable('social_posts')
        .set({ state: 'failed', error: error instanceof Error ? error.message : 'publishing failed' })
        .where('id', '=', post.id)
        .execute()
      return
    }
    throw error
  }
  const postedAt = new Date()
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('social_posts')
      .set({ state: 'posted', url, posted_at: postedAt, error: null })
      .where('id', '=', post.id)
      .execute()
    await recordEvent(trx, {
      accountId: post.account_id,
      siteId: post.site_id,
      type: 'social.posted',
      data: {
        post_id: post.id,
        social_account_id: account.id,
        network: account.network,
        handle: account.handle,
        site_id: post.site_id,
        url,
        text: postText(post.text, post.link),
        posted_at: postedAt.toISOString(),
      },
    })
  })
}

/** The job that publishes a scheduled post at its time; its last try keeps the failure. */
export function socialPostJob(deps: PublishDeps): NamedJob<{ post_id: string }> {
  return {
    name: SOCIAL_POST_JOB,
    definition: {
      maxAttempts: POST_ATTEMPTS,
      handler: (payload, { job }) => publishPost(deps, payload.post_id, job.attempts >= POST_ATTEMPTS),
    },
  }
}
