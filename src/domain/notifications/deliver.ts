import type { Logger } from 'pino'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJobs, scheduleDaily, type NamedJob } from '../../infra/jobs.ts'
import type { Mailer } from '../../infra/mailer.ts'
import { digestMail, instantMail, type Recipient } from './mails.ts'
import { NOTICE_JOB, noticeContents } from './notices.ts'
import { DEFAULT_DELIVERY, type NoticeDelivery, type NoticeKind } from './settings.ts'
import { unsubscribeTokens, type UnsubscribeTarget } from './unsubscribe-token.ts'

/** One mail at once to one person about one notice. */
export const NOTICE_MAIL_JOB = 'notify.mail'
/** Once a day: one digest job per person who chose a digest. */
export const DIGEST_JOB = 'notify.digests'
/** One person's digests (one mail per account). */
export const DIGEST_MAIL_JOB = 'notify.digest'
/** The digests go out at 07:00 UTC, before the working day in Europe. */
const DIGEST_TIME = { hour: 7 }

export interface NotifyDeps {
  db: Db
  keyring: Keyring
  mailer: Mailer
  log: Logger
  /** BASE_URL: the links of the mails. */
  baseUrl: string
}

/** The unsubscribe link of a kind (or of the digest) for a person in an account. */
export async function unsubscribeUrl(deps: Pick<NotifyDeps, 'db' | 'keyring' | 'baseUrl'>, target: UnsubscribeTarget): Promise<string> {
  const tokens = await unsubscribeTokens(deps.db, deps.keyring)
  return `${deps.baseUrl}/unsubscribe/${tokens.sign(target)}`
}

/** The owners and editors of the account (the people who hear of messages), with how each chose to hear of `kind`. */
async function recipients(db: Db, keyring: Keyring, accountId: string, kind: NoticeKind, userId?: string) {
  let query = db
    .selectFrom('account_members')
    .innerJoin('users', 'users.id', 'account_members.user_id')
    .leftJoin('notification_settings as s', (join) =>
      join
        .onRef('s.user_id', '=', 'account_members.user_id')
        .onRef('s.account_id', '=', 'account_members.account_id')
        .on('s.kind', '=', kind),
    )
    .select(['users.id', 'users.email_sealed', 'users.language', 's.delivery'])
    .where('account_members.account_id', '=', accountId)
    .where('account_members.role', 'in', ['owner', 'editor'])
  if (userId) query = query.where('users.id', '=', userId)
  const rows = await query.orderBy('account_members.created_at').orderBy('account_members.seq').execute()
  return rows.map((row) => ({
    recipient: {
      userId: row.id,
      email: keyring.open(row.email_sealed, `users.email:${row.id}`),
      language: row.language,
    } satisfies Recipient,
    delivery: (row.delivery ?? DEFAULT_DELIVERY) as NoticeDelivery,
  }))
}

/** Queues one mail job per person who wants this notice at once, so one failing address holds up no other. */
export async function fanOutNotice(db: Db, noticeId: string): Promise<number> {
  const notice = await db.selectFrom('notices').select(['account_id', 'kind']).where('id', '=', noticeId).executeTakeFirst()
  if (!notice) return 0
  const wanted = await db
    .selectFrom('account_members')
    .leftJoin('notification_settings as s', (join) =>
      join
        .onRef('s.user_id', '=', 'account_members.user_id')
        .onRef('s.account_id', '=', 'account_members.account_id')
        .on('s.kind', '=', notice.kind),
    )
    .select('account_members.user_id')
    .where('account_members.account_id', '=', notice.account_id)
    .where('account_members.role', 'in', ['owner', 'editor'])
    .where((eb) => eb.or([eb('s.delivery', 'is', null), eb('s.delivery', '=', 'instant')]))
    .execute()
  await enqueueJobs(
    db,
    wanted.map((row) => ({
      name: NOTICE_MAIL_JOB,
      payload: { notice_id: noticeId, user_id: row.user_id },
      options: { uniqueKey: `${noticeId}:${row.user_id}`, maxAttempts: 8 },
    })),
  )
  return wanted.length
}

/** Sends one person the mail about one notice, if they still want it at once and may still read the account's messages. */
export async function sendNoticeMail(deps: NotifyDeps, noticeId: string, userId: string): Promise<boolean> {
  const [notice] = await noticeContents(deps.db, deps.keyring, [noticeId])
  if (!notice) return false
  const [person] = await recipients(deps.db, deps.keyring, notice.accountId, notice.kind, userId)
  if (!person || person.delivery !== 'instant') return false
  const unsubscribe = await unsubscribeUrl(deps, { userId, accountId: notice.accountId, kind: notice.kind })
  await deps.mailer.send(instantMail(person.recipient, notice, { baseUrl: deps.baseUrl, unsubscribe }))
  return true
}

/**
 * Sends one person the digest of one account: what arrived, of every kind they chose the digest
 * for, since their last digest up to `now`. The period is claimed before the mail goes out (the
 * start moved to `now`) and given back when sending fails, so a retried job sends nothing twice
 * and loses nothing. Answers how many notices the mail carried.
 */
export async function sendDigest(deps: NotifyDeps, userId: string, accountId: string, now = new Date()): Promise<number> {
  const { db } = deps
  const claimed = await db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('notification_settings')
      .select(['kind', 'digest_since'])
      .where('user_id', '=', userId)
      .where('account_id', '=', accountId)
      .where('delivery', '=', 'digest')
      .forUpdate()
      .execute()
    if (rows.length === 0) return []
    await trx
      .updateTable('notification_settings')
      .set({ digest_since: now })
      .where('user_id', '=', userId)
      .where('account_id', '=', accountId)
      .where('delivery', '=', 'digest')
      .execute()
    return rows.map((row) => ({ kind: row.kind, since: row.digest_since ?? now }))
  })
  if (claimed.length === 0) return 0
  const giveBack = () =>
    db.transaction().execute(async (trx) => {
      for (const { kind, since } of claimed)
        await trx
          .updateTable('notification_settings')
          .set({ digest_since: since })
          .where('user_id', '=', userId)
          .where('account_id', '=', accountId)
          .where('kind', '=', kind)
          .where('digest_since', '=', now)
          .execute()
    })
  try {
    const ids: string[] = []
    for (const { kind, since } of claimed) {
      const rows = await db
        .selectFrom('notices')
        .select('id')
        .where('account_id', '=', accountId)
        .where('kind', '=', kind)
        .where('created_at', '>', since)
        .where('created_at', '<=', now)
        .execute()
      ids.push(...rows.map((row) => row.id))
    }
    const notices = await noticeContents(db, deps.keyring, ids)
    if (notices.length === 0) return 0
    const [person] = await recipients(db, deps.keyring, accountId, claimed[0]!.kind, userId)
    if (!person) return 0
    const since = new Date(Math.min(...claimed.map((c) => c.since.getTime())))
    const unsubscribe = await unsubscribeUrl(deps, { userId, accountId, kind: 'digest' })
    await deps.mailer.send(digestMail(person.recipient, notices, since, { baseUrl: deps.baseUrl, unsubscribe }))
    return notices.length
  } catch (error) {
    await giveBack()
    throw error
  }
}

/**
 * Queues today's digests: one job per person with a kind on the digest, which sends one mail per
 * account. The job names the person only, so the queue keeps no account's id once it is erased.
 */
export async function queueDigests(db: Db, now = new Date()): Promise<number> {
  const day = now.toISOString().slice(0, 10)
  const people = await db.selectFrom('notification_settings').select('user_id').distinct().where('delivery', '=', 'digest').execute()
  await enqueueJobs(
    db,
    people.map((p) => ({
      name: DIGEST_MAIL_JOB,
      payload: { user_id: p.user_id },
      options: { uniqueKey: `${p.user_id}:${day}`, maxAttempts: 8 },
    })),
  )
  return people.length
}

/** The person's digest of each account they get one of; an account already sent is claimed and not sent again on a retry. */
export async function sendDigestsOf(deps: NotifyDeps, userId: string, now = new Date()): Promise<number> {
  const accounts = await deps.db
    .selectFrom('notification_settings')
    .select('account_id')
    .distinct()
    .where('user_id', '=', userId)
    .where('delivery', '=', 'digest')
    .execute()
  let sent = 0
  for (const { account_id } of accounts) if ((await sendDigest(deps, userId, account_id, now)) > 0) sent++
  return sent
}

/** The notification jobs for the jobs plugin: the fan-out of a notice, each mail, and the daily digests. */
export function notificationJobs(deps: NotifyDeps): NamedJob[] {
  const scheduleNext = () => scheduleDaily(deps.db, DIGEST_JOB, DIGEST_TIME)
  return [
    {
      name: NOTICE_JOB,
      definition: { handler: async (payload: { notice_id: string }) => void (await fanOutNotice(deps.db, payload.notice_id)) },
    },
    {
      name: NOTICE_MAIL_JOB,
      definition: {
        handler: async (payload: { notice_id: string; user_id: string }) =>
          void (await sendNoticeMail(deps, payload.notice_id, payload.user_id)),
        maxAttempts: 8,
      },
    },
    {
      name: DIGEST_JOB,
      definition: {
        handler: async (_payload, { log }) => {
          await scheduleNext()
          log.info({ people: await queueDigests(deps.db) }, 'daily digests queued')
        },
      },
      scheduleNext,
    },
    {
      name: DIGEST_MAIL_JOB,
      definition: {
        handler: async (payload: { user_id: string }) => void (await sendDigestsOf(deps, payload.user_id)),
        maxAttempts: 8,
      },
    },
  ]
}
