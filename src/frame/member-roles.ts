import type { Db } from '../infra/db.ts'
import { changedSince, changeSequence } from '../domain/accounts/changes.ts'
import { actingMember, memberKey, type Role } from '../domain/accounts/members.ts'

const FRESH_MS = 1000
const MAX_ENTRIES = 10_000

export interface Acting {
  userId: string | null
  role: Role
}

/**
 * Who an OAuth access token acts as in its account, read for a call and kept a second, so a burst
 * of calls reads it once. A role changed or a member removed by this process is read again at
 * once; a change made elsewhere is seen within the second.
 */
export class MemberRoles {
  readonly #db: Db
  readonly #entries = new Map<string, { acting: Acting | undefined; readAt: number; seen: number }>()

  constructor(db: Db) {
    this.#db = db
  }

  /** The answer of `of` when it is in memory and fresh (`{ acting: undefined }`: not a member); undefined when it must be read. */
  known(accountId: string, subject: string, now = Date.now()): { acting: Acting | undefined } | undefined {
    const entry = this.#entries.get(`${accountId} ${subject}`)
    if (!entry || now - entry.readAt > FRESH_MS || changedSince(memberKey(accountId, entry.acting?.userId ?? subject), entry.seen))
      return undefined
    return entry
  }

  /** The member the subject (`usr_…`, or a claimed agent's `reg_…`) acts as; undefined when they do not belong to the account. */
  async of(accountId: string, subject: string, now = Date.now()): Promise<Acting | undefined> {
    const known = this.known(accountId, subject, now)
    if (known) return known.acting
    const key = `${accountId} ${subject}`
    const seen = changeSequence()
    const acting = await actingMember(this.#db, accountId, subject)
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear()
    this.#entries.set(key, { acting, readAt: now, seen })
    return acting
  }
}
