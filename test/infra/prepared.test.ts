import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createAccountSite, getAccountSite, listAccountSites } from '../../src/domain/sites/sites.ts'
import { newId } from '../../src/infra/crypto.ts'
import { executePrepared, preparedQuery } from '../../src/infra/prepared.ts'
import { buildTestApp } from '../helpers/app.ts'

// One connection, so every statement below meets the prepared statements of the ones before it.
const { app } = await buildTestApp({ env: { DATABASE_POOL_SIZE: '1' } })
const postgres = process.env.TEST_DB === 'postgres'

async function accountWithSite() {
  const accountId = newId('acct')
  await app.db.insertInto('accounts').values({ id: accountId }).execute()
  const site = await createAccountSite(app.db, accountId, { name: 'Prepared' })
  return { accountId, site }
}

/** The statements this session holds prepared, by their text. */
async function preparedTexts(): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(app.db)
  return rows.map((r) => r.statement)
}

describe('hot reads as prepared statements', () => {
  it('answer the same rows, and for other accounts nothing', async () => {
    const { accountId, site } = await accountWithSite()
    for (let i = 0; i < 3; i++)
      expect(await getAccountSite(app.db, accountId, site.id)).toMatchObject({ id: site.id, name: 'Prepared', domain: null })
    expect(await getAccountSite(app.db, newId('acct'), site.id)).toBeUndefined()
    expect(await listAccountSites(app.db, accountId, { limit: 10, offset: 0 })).toMatchObject({ total: 1, items: [{ id: site.id }] })
    expect(await listAccountSites(app.db, accountId, { limit: 10, offset: 1 })).toMatchObject({ total: 1, items: [] })
  })

  it.runIf(postgres)('are parsed once per connection, and only those asked for', async () => {
    const { accountId, site } = await accountWithSite()
    await getAccountSite(app.db, accountId, site.id)
    const texts = await preparedTexts()
    expect(texts.filter((t) => t.includes('from "sites"') && t.includes('"sites"."id" = $2'))).toHaveLength(1)
    expect(texts.some((t) => t.includes('pg_prepared_statements'))).toBe(false)
  })

  it.runIf(postgres)(
    'survive a migration that changes their columns: prepared again outside a transaction, the connection dropped inside one',
    async () => {
      const { accountId, site } = await accountWithSite()
      await getAccountSite(app.db, accountId, site.id)
      await sql`alter table sites add column prepared_probe text`.execute(app.db)
      try {
        expect(await getAccountSite(app.db, accountId, site.id)).toMatchObject({ id: site.id, prepared_probe: null })

        await sql`alter table sites drop column prepared_probe`.execute(app.db)
        // Inside a transaction the refusal aborts it: the caller sees the error once, the next call is served.
        await expect(app.db.transaction().execute((trx) => getAccountSite(trx, accountId, site.id))).rejects.toThrow(/cached plan/)
        expect(await getAccountSite(app.db, accountId, site.id)).toMatchObject({ id: site.id })
        expect(await getAccountSite(app.db, accountId, site.id)).not.toHaveProperty('prepared_probe')
      } finally {
        await sql`alter table sites drop column if exists prepared_probe`.execute(app.db)
      }
    },
  )

  it('inside a transaction they read what the transaction wrote; the database itself sees it only once committed', async () => {
    const { accountId, site } = await accountWithSite()
    await app.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('sites').set({ name: 'Renamed inside' }).where('id', '=', site.id).execute()
        expect(await getAccountSite(trx, accountId, site.id)).toMatchObject({ name: 'Renamed inside' })
        throw new Error('roll back')
      })
      .catch(() => {})
    expect(await getAccountSite(app.db, accountId, site.id)).toMatchObject({ name: 'Prepared' })
  })

  it('any query can run prepared, with its parameters bound each time', async () => {
    const query = (n: number) => app.db.selectNoFrom(sql<number>`${n}::int + 1`.as('next'))
    expect(await executePrepared(app.db, query(1))).toEqual([{ next: 2 }])
    expect(await executePrepared(app.db, query(41))).toEqual([{ next: 42 }])
  })

  it('a query built once binds each call its own values, an argument used twice in both places, constants kept', async () => {
    let built = 0
    const sum = preparedQuery((db, a: number, b: number) => {
      built++
      return db.selectNoFrom(sql<number>`${a}::int + ${b}::int + ${a}::int + ${100}::int`.as('n'))
    })
    expect(await sum(app.db, 1, 2)).toEqual([{ n: 104 }])
    expect(await sum(app.db, 10, 20)).toEqual([{ n: 140 }])
    expect(built).toBe(1)
    const unused = preparedQuery((db, _a: number) => db.selectNoFrom(sql<number>`1`.as('n')))
    await expect(unused(app.db, 1)).rejects.toThrow(/every argument/)
  })
})
