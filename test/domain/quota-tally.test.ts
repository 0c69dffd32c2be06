import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { chargeRequest, usage, windowStart, WINDOW_SECONDS } from '../../src/domain/accounts/quota.ts'
import { exactBelow, QuotaTally } from '../../src/domain/accounts/quota-tally.ts'
import { eraseAccount } from '../../src/domain/your-data/deletion.ts'
import { newId } from '../../src/infra/crypto.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()
const silent = { warn: () => {} }

async function account(plan: 'plus' | 'pro' | 'max', quotaOverride: number | null = null) {
  const id = newId('acct')
  await app.db.insertInto('accounts').values({ id, plan, quota_override: quotaOverride }).execute()
  return id
}

/** The first request of an account is charged exactly; the tally learns from its answer. */
async function exactFirst(tally: QuotaTally, id: string, now = Date.now()) {
  expect(tally.charge(id, now)).toBeUndefined()
  const charge = (await chargeRequest(app.db, id, now))!
  tally.remember(id, charge, now)
  return charge
}

describe('hourly budgets counted in process far from the limit', () => {
  it('counts locally, writes the counts to the shared counter and reads back its total', async () => {
    const tally = new QuotaTally(app.db, silent)
    const id = await account('pro', 10_000)
    await exactFirst(tally, id)
    const local = Array.from({ length: 5 }, () => tally.charge(id)!)
    expect(local.map((c) => c.used)).toEqual([2, 3, 4, 5, 6])
    expect(local[0]).toMatchObject({ plan: 'pro', limit: 10_000 })
    expect(await usage(app.db, id)).toBe(1)

    await tally.flush()
    expect(await usage(app.db, id)).toBe(6)
    // Another instance's traffic reaches this one's count with the next flush.
    await chargeRequest(app.db, id)
    tally.charge(id)
    await tally.flush()
    expect(await usage(app.db, id)).toBe(8)
    expect(tally.charge(id)!.used).toBe(9)
  })

  it('charges the database exactly near the limit, in a new window and once its reading is stale', async () => {
    const tally = new QuotaTally(app.db, silent)
    const small = await account('pro', 6)
    await exactFirst(tally, small)
    expect(tally.charge(small)).toBeUndefined()
    expect(exactBelow(6)).toBe(100)

    const big = await account('max', 1000)
    const now = Date.now()
    await exactFirst(tally, big, now)
    expect(tally.charge(big, now + 10)).toBeDefined()
    expect(tally.charge(big, now + 5_000)).toBeUndefined()
    const next = windowStart(now).getTime() + WINDOW_SECONDS * 1000
    expect(tally.charge(big, next + 1)).toBeUndefined()

    // At exactBelow(limit) requests left, every request is exact again.
    const edge = await account('max', 200)
    await exactFirst(tally, edge)
    let local = 0
    while (tally.charge(edge)) local++
    expect(local).toBe(200 - 1 - exactBelow(200))
  })

  it('sees a plan change with the next flush, and forgets an account that is gone', async () => {
    const tally = new QuotaTally(app.db, silent)
    const id = await account('max', 10_000)
    await exactFirst(tally, id)
    tally.charge(id)
    await updateAccount(app.db, id, { plan: 'plus', quotaOverride: null })
    await tally.flush()
    expect(tally.charge(id)).toMatchObject({ plan: 'plus', limit: 300 })

    tally.charge(id)
    await app.db.deleteFrom('api_quota').where('account_id', '=', id).execute()
    await app.db.deleteFrom('accounts').where('id', '=', id).execute()
    await tally.flush()
    expect(tally.charge(id)).toBeUndefined()
  })

  it('drops the counts of an account being erased, after the write under way, so none is written once its rows are gone', async () => {
    const tally = new QuotaTally(app.db, silent)
    const id = await account('pro', 10_000)
    // The tally knows the account (as from an earlier flush) and counts five calls; no counter row exists yet.
    const window = windowStart(Date.now())
    tally.remember(id, {
      plan: 'pro',
      limit: 10_000,
      used: 0,
      resetAt: new Date(window.getTime() + WINDOW_SECONDS * 1000),
      suspended: false,
    })
    for (let i = 0; i < 5; i++) expect(tally.charge(id)).toBeDefined()
    // Another connection is inserting the same counter row: the write of the five waits for it.
    let rollBack!: () => void
    let inserted!: () => void
    const isInserted = new Promise<void>((resolve) => (inserted = resolve))
    const holder = app.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('api_quota').values({ account_id: id, window_start: window, used: 0 }).execute()
        inserted()
        await new Promise<void>((resolve) => (rollBack = resolve))
        throw new Error('rolled back')
      })
      .catch(() => {})
    await isInserted
    const writing = tally.flush()
    let erased = false
    const erasing = eraseAccount(app.db, id, { forgetCounts: (accountId) => tally.forget(accountId) }).then(() => (erased = true))
    await new Promise((resolve) => setTimeout(resolve, 100))
    // The erase waits for the write, which inserts the row once the other connection rolls back.
    expect(erased).toBe(false)
    rollBack()
    await Promise.all([holder, writing, erasing])
    expect(await app.db.selectFrom('api_quota').select('used').where('account_id', '=', id).execute()).toEqual([])
    // A call after the erase is refused by the exact path; nothing is counted here or written later.
    expect(tally.charge(id)).toBeUndefined()
    expect(await chargeRequest(app.db, id)).toBeUndefined()
    await tally.flush()
    expect(await app.db.selectFrom('api_quota').select('used').where('account_id', '=', id).execute()).toEqual([])
  })
})
