import { createHmac, randomBytes } from 'node:crypto'
import { safeEqual, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { isNoticeKind, type NoticeKind } from './settings.ts'

/**
 * The unsubscribe link of a notification mail works without signing in (RFC 8058 one-click
 * included), so it carries who, which account and which kind, with an HMAC-SHA256 over them
 * under a random key kept sealed in the database (every instance signs and checks alike). A link
 * altered in any part, or signed with another key, names nobody. It does not expire: a mail read
 * months later must still stop the mails.
 */
const KEY_NAME = 'notification_unsubscribe_key'

/** A kind's mails, or the daily digest (every kind the person gets in it). */
export type UnsubscribeKind = NoticeKind | 'digest'

export interface UnsubscribeTarget {
  userId: string
  accountId: string
  kind: UnsubscribeKind
}

export interface UnsubscribeTokens {
  sign(target: UnsubscribeTarget): string
  /** The target of a token, or undefined when it was not made here or was altered. */
  verify(token: string): UnsubscribeTarget | undefined
}

const keys = new WeakMap<Db, Promise<Buffer>>()

async function loadKey(db: Db, keyring: Keyring): Promise<Buffer> {
  const context = `identity_secrets:${KEY_NAME}`
  await db
    .insertInto('identity_secrets')
    .values({ name: KEY_NAME, value_sealed: keyring.seal(randomBytes(32).toString('base64'), context) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('identity_secrets').select('value_sealed').where('name', '=', KEY_NAME).executeTakeFirstOrThrow()
  return Buffer.from(keyring.open(row.value_sealed, context), 'base64')
}

/** The signer of unsubscribe links, its key read once per database. */
export async function unsubscribeTokens(db: Db, keyring: Keyring): Promise<UnsubscribeTokens> {
  let key = keys.get(db)
  if (!key) {
    key = loadKey(db, keyring)
    keys.set(db, key)
    key.catch(() => keys.delete(db))
  }
  const secret = await key
  const mac = (t: UnsubscribeTarget) =>
    createHmac('sha256', secret).update(`unsubscribe\n${t.kind}\n${t.userId}\n${t.accountId}`).digest('base64url')
  return {
    sign: (target) => `${target.kind}.${target.userId}.${target.accountId}.${mac(target)}`,
    verify(token) {
      const parts = token.split('.')
      if (parts.length !== 4) return undefined
      const [kind, userId, accountId, signature] = parts as [string, string, string, string]
      if (
        !(isNoticeKind(kind) || kind === 'digest') ||
        !/^usr_[A-Za-z0-9_-]{1,64}$/.test(userId) ||
        !/^acct_[A-Za-z0-9_-]{1,64}$/.test(accountId)
      )
        return undefined
      const target: UnsubscribeTarget = { kind: kind as UnsubscribeKind, userId, accountId }
      return safeEqual(signature, mac(target)) ? target : undefined
    },
  }
}
