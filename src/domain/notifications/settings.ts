import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import type { NoticeDelivery, NoticeKind } from '../../infra/tables.ts'

export type { NoticeDelivery, NoticeKind }

/** What the account's people hear of (DESIGN.md 17): contact-form messages, assistant leads, requests for a person. */
export const NOTICE_KINDS = ['contact_form', 'assistant_lead', 'handoff'] as const satisfies readonly NoticeKind[]
/** How: a mail at once, one daily digest, or nothing. */
export const DELIVERIES = ['instant', 'digest', 'none'] as const satisfies readonly NoticeDelivery[]
/** A person who chose nothing gets each mail at once. */
export const DEFAULT_DELIVERY: NoticeDelivery = 'instant'

export function isNoticeKind(value: unknown): value is NoticeKind {
  return typeof value === 'string' && (NOTICE_KINDS as readonly string[]).includes(value)
}

export type NotificationChoices = Record<NoticeKind, NoticeDelivery>

/** The person's choice per kind in the account, the default where they chose nothing. */
export async function notificationChoices(db: Db, userId: string, accountId: string): Promise<NotificationChoices> {
  const rows = await db
    .selectFrom('notification_settings')
    .select(['kind', 'delivery'])
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .execute()
  const choices = Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, DEFAULT_DELIVERY])) as NotificationChoices
  for (const row of rows) choices[row.kind] = row.delivery
  return choices
}

/**
 * Sets how the person hears of one kind in the account. Choosing the digest starts it now, so the
 * first digest brings what arrives from here on (not everything before); keeping it leaves the
 * start where it was. `unsubscribed` marks a change made by a mail's unsubscribe link.
 */
export async function setNotificationChoice(
  db: Db,
  change: { userId: string; accountId: string; kind: NoticeKind; delivery: NoticeDelivery; unsubscribed?: boolean },
): Promise<void> {
  const now = new Date()
  await db
    .insertInto('notification_settings')
    .values({
      user_id: change.userId,
      account_id: change.accountId,
      kind: change.kind,
      delivery: change.delivery,
      digest_since: change.delivery === 'digest' ? now : null,
      unsubscribed_at: change.unsubscribed ? now : null,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'account_id', 'kind']).doUpdateSet({
        delivery: change.delivery,
        digest_since:
          change.delivery === 'digest'
            ? sql`case when notification_settings.delivery = 'digest' then notification_settings.digest_since else ${now} end`
            : null,
        // A save that keeps the choice keeps the mark of how it was made.
        unsubscribed_at: change.unsubscribed
          ? now
          : sql`case when notification_settings.delivery = ${change.delivery} then notification_settings.unsubscribed_at else null end`,
        updated_at: now,
      }),
    )
    .execute()
}

/** Several kinds at once (the settings page's form), in the caller's transaction. */
export async function setNotificationChoices(
  db: Db,
  userId: string,
  accountId: string,
  choices: Partial<NotificationChoices>,
): Promise<void> {
  for (const kind of NOTICE_KINDS) {
    const delivery = choices[kind]
    if (delivery) await setNotificationChoice(db, { userId, accountId, kind, delivery })
  }
}

/** The kinds a mail's unsubscribe link stops: its own kind, or for the digest every kind the person gets in it. */
export async function kindsToStop(
  db: Db,
  target: { userId: string; accountId: string; kind: NoticeKind | 'digest' },
): Promise<NoticeKind[]> {
  if (target.kind !== 'digest') {
    const choices = await notificationChoices(db, target.userId, target.accountId)
    return choices[target.kind] === 'none' ? [] : [target.kind]
  }
  const rows = await db
    .selectFrom('notification_settings')
    .select('kind')
    .where('user_id', '=', target.userId)
    .where('account_id', '=', target.accountId)
    .where('delivery', '=', 'digest')
    .execute()
  return rows.map((row) => row.kind)
}

/** What an unsubscribe link does: the kinds it names are set to none, marked as stopped by the link. Answers the kinds it stopped. */
export async function unsubscribe(
  db: Db,
  target: { userId: string; accountId: string; kind: NoticeKind | 'digest' },
): Promise<NoticeKind[]> {
  const kinds = await kindsToStop(db, target)
  for (const kind of kinds)
    await setNotificationChoice(db, { userId: target.userId, accountId: target.accountId, kind, delivery: 'none', unsubscribed: true })
  return kinds
}
