import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { changedSince, changeSequence, changing } from '../../src/domain/accounts/changes.ts'
import { inTransaction, withTransaction } from '../../src/domain/transaction.ts'
import { newId } from '../../src/infra/crypto.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()

async function account() {
  const id = newId('acct')
  await app.db.insertInto('accounts').values({ id, plan: 'pro' }).execute()
  return id
}

describe('changes made stale for the caches once they commit', () => {
  it('marks a change again when its transaction commits: a reading made before the commit is stale after it', async () => {
    const id = await account()
    let seenMeanwhile = 0
    await inTransaction(app.db, async (trx) => {
      await changing(trx, [id], () => trx.updateTable('accounts').set({ plan: 'max' }).where('id', '=', id).execute())
      // Another request reads the account now: it sees the plan as it was until the commit.
      seenMeanwhile = changeSequence()
      expect(changedSince(id, seenMeanwhile)).toBe(false)
    })
    expect(changedSince(id, seenMeanwhile)).toBe(true)
  })

  it('marks a change made without a transaction after its write, and one rolled back only before it', async () => {
    const id = await account()
    const before = changeSequence()
    await changing(app.db, [id], async () => {
      expect(changedSince(id, before)).toBe(true)
    })
    const after = changeSequence()
    expect(after).toBeGreaterThan(before + 1)

    let seenMeanwhile = 0
    await expect(
      withTransaction(app.db, async (trx) => {
        await changing(trx, [id], () => trx.updateTable('accounts').set({ plan: 'max' }).where('id', '=', id).execute())
        seenMeanwhile = changeSequence()
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect(changedSince(id, seenMeanwhile)).toBe(false)
  })

  it('marks a plan change made in a caller transaction when that transaction commits', async () => {
    const id = await account()
    let seenMeanwhile = 0
    await withTransaction(app.db, async (trx) => {
      await updateAccount(trx, id, { plan: 'plus' })
      seenMeanwhile = changeSequence()
    })
    expect(changedSince(id, seenMeanwhile)).toBe(true)
    const seenAfter = changeSequence()
    await updateAccount(app.db, id, { plan: 'max' })
    expect(changedSince(id, seenAfter)).toBe(true)
  })

  it('marks a change made in a transaction opened without inTransaction at once, never dropping the mark', async () => {
    const id = await account()
    const before = changeSequence()
    let seenMeanwhile = 0
    await app.db.transaction().execute(async (trx) => {
      await changing(trx, [id], () => trx.updateTable('accounts').set({ plan: 'max' }).where('id', '=', id).execute())
      seenMeanwhile = changeSequence()
    })
    expect(changedSince(id, before)).toBe(true)
    expect(seenMeanwhile).toBeGreaterThan(before + 1)
  })
})
