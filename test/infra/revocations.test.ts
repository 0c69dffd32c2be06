import { describe, expect, it } from 'vitest'
import { newId } from '../../src/infra/crypto.ts'
import { denyJtis, isRevoked, revocationsChanged } from '../../src/infra/revocations.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()
const later = () => new Date(Date.now() + 600_000)

/** A row written straight into the shared table: a revocation made by another instance. */
async function revokedElsewhere(jti: string) {
  await app.db.insertInto('revoked_tokens').values({ jti, expires_at: later() }).execute()
}

describe('the shared denylist', () => {
  it('finds tokens revoked by jti or by their group', async () => {
    const [jti, group] = [newId('jti'), newId('grp')]
    await revokedElsewhere(group)
    expect(await isRevoked(app.db, jti)).toBe(false)
    expect(await isRevoked(app.db, jti, group)).toBe(true)
    await revokedElsewhere(jti)
    expect(await isRevoked(app.db, jti, undefined, Date.now() + 1000)).toBe(true)
  })

  it('answers a token found clean from memory for one second, then asks again', async () => {
    const jti = newId('jti')
    const now = Date.now()
    expect(await isRevoked(app.db, jti, undefined, now)).toBe(false)
    await revokedElsewhere(jti)
    expect(await isRevoked(app.db, jti, undefined, now + 999)).toBe(false)
    expect(await isRevoked(app.db, jti, undefined, now + 1000)).toBe(true)
    // A revoked token is never remembered as such: it stays revoked on every later check.
    expect(await isRevoked(app.db, jti, undefined, now + 1001)).toBe(true)
  })

  it('sees a revocation made by this process at once', async () => {
    const [jti, group] = [newId('jti'), newId('grp')]
    expect(await isRevoked(app.db, jti, group)).toBe(false)
    await denyJtis(app.db, [{ jti: group, expiresAt: later() }])
    expect(await isRevoked(app.db, jti, group)).toBe(true)
  })

  // The embedded database has one connection: a check from outside an open transaction waits for it.
  it.skipIf(process.env.TEST_DB === 'embedded')(
    'is told by a transaction that revoked tokens, once it commits, to drop what it remembered meanwhile',
    async () => {
      const jti = newId('jti')
      await app.db.transaction().execute(async (trx) => {
        await denyJtis(trx, [{ jti, expiresAt: later() }])
        // Checked from outside while the transaction is open: the row is not visible yet.
        expect(await isRevoked(app.db, jti)).toBe(false)
      })
      revocationsChanged()
      expect(await isRevoked(app.db, jti)).toBe(true)
    },
  )

  it('keeps no entry for tokens already expired', async () => {
    const jti = newId('jti')
    await denyJtis(app.db, [{ jti, expiresAt: new Date(Date.now() - 1000) }])
    expect(await app.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti).executeTakeFirst()).toBeUndefined()
  })
})
