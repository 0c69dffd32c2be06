import { afterEach, describe, expect, it, vi } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { changeSequence } from '../../src/domain/accounts/changes.ts'
import { chargeRequest } from '../../src/domain/accounts/quota.ts'
import { accountChanged, QuotaTally } from '../../src/domain/accounts/quota-tally.ts'
import { newId } from '../../src/infra/crypto.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()
const silent = { warn: () => {} }

async function account() {
  const id = newId('acct')
  await app.db.insertInto('accounts').values({ id, plan: 'max', quota_override: 10_000 }).execute()
  return id
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a plan change and a reading of the tally in the same millisecond', () => {
  it('sees the change with the next flush even when the clock has not moved', async () => {
    const tally = new QuotaTally(app.db, silent)
    const id = await account()
    const now = Date.now()
    vi.spyOn(Date, 'now').mockReturnValue(now)
    tally.remember(id, (await chargeRequest(app.db, id, now))!, now)
    expect(tally.charge(id, now)).toBeDefined()
    await updateAccount(app.db, id, { plan: 'plus', quotaOverride: null })
    expect(tally.charge(id, now)).toBeUndefined()
    await tally.flush()
    expect(tally.charge(id, now)).toMatchObject({ plan: 'plus', limit: 300 })
  })

  it('treats a reading asked before the change as stale, one asked after it as fresh', async () => {
    const tally = new QuotaTally(app.db, silent)
    const id = await account()
    const now = Date.now()
    const charge = (await chargeRequest(app.db, id, now))!
    const before = changeSequence()
    accountChanged(id)
    tally.remember(id, charge, now, before)
    expect(tally.charge(id, now)).toBeUndefined()
    tally.remember(id, charge, now)
    expect(tally.charge(id, now)).toMatchObject({ plan: 'max' })
  })
})
