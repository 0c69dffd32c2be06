import { describe, expect, it } from 'vitest'
import { auditRecord, insertAuditRecords, purgeAuditLog } from '../../src/domain/accounts/audit-log.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'

const { app } = await buildTestApp()

const DAY = 86_400_000
const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers })

/** The records the database holds for the account in [since, until), counted one by one. */
async function counted(accountId: string, since?: Date, until?: Date): Promise<number> {
  let query = app.db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
  if (since) query = query.where('at', '>=', since)
  if (until) query = query.where('at', '<', until)
  return Number((await query.executeTakeFirstOrThrow()).n)
}

describe('list totals', () => {
  it("the audit log's total matches the records over whole and partial days, after writes in one statement and in many, and after a purge", async () => {
    const owner = await makeAccount(app, 'pro', ['manage:tokens'])
    const other = await makeAccount(app, 'pro', ['manage:tokens'])
    const midnight = Math.floor(Date.now() / DAY) * DAY
    // Records over ten days, at odd hours, written as the batcher writes them (many in one statement) and one by one.
    const at = (day: number, hour: number) => new Date(midnight - day * DAY + hour * 3_600_000 + 1234)
    const entry = (accountId: string, when: Date) =>
      auditRecord({
        at: when,
        accountId,
        tokenId: null,
        clientId: null,
        operation: 'sites.list',
        method: 'GET',
        path: '/v1/sites',
        status: 200,
        requestId: 'r',
        ip: '127.0.0.1',
      })
    const batch = Array.from({ length: 60 }, (_, i) => entry(owner.accountId, at(1 + (i % 10), i % 24)))
    await insertAuditRecords(app.db, batch)
    for (let i = 0; i < 7; i++) await insertAuditRecords(app.db, [entry(owner.accountId, at(i, 5 + i))])
    await insertAuditRecords(app.db, [entry(other.accountId, at(2, 3)), entry(other.accountId, at(3, 3))])

    const total = async (query = '') => (await get(`/v1/audit-log${query}`, owner.headers)).json().meta.total as number
    expect(await total()).toBe(67)
    expect(await total()).toBe(await counted(owner.accountId))
    const windows: Array<[Date | undefined, Date | undefined]> = [
      [new Date(midnight - 4 * DAY), undefined],
      [new Date(midnight - 4 * DAY + 7_200_000), undefined],
      [undefined, new Date(midnight - 3 * DAY)],
      [undefined, new Date(midnight - 3 * DAY + 36_000_000)],
      [new Date(midnight - 8 * DAY + 1), new Date(midnight - 2 * DAY - 1)],
      [new Date(midnight - 5 * DAY + 3_600_000), new Date(midnight - 5 * DAY + 20 * 3_600_000)],
      [new Date(midnight - 5 * DAY + 3_600_000), new Date(midnight - 4 * DAY + 20 * 3_600_000)],
      [new Date(midnight - 6 * DAY), new Date(midnight - 6 * DAY)],
    ]
    for (const [since, until] of windows) {
      const query = `?${since ? `since=${since.toISOString()}&` : ''}${until ? `until=${until.toISOString()}` : ''}`
      expect(await total(query), query).toBe(await counted(owner.accountId, since, until))
    }
    // Filters the day counts do not know are counted record by record.
    expect(await total('?operation=sites.list')).toBe(67)
    expect(await total('?operation=nothing')).toBe(0)

    // A purge removes whole days and part of one: the totals follow.
    await purgeAuditLog(app.db, midnight + 85 * DAY + 12 * 3_600_000)
    expect(await total()).toBe(await counted(owner.accountId))
    expect(await total()).toBeLessThan(67)
    expect(await total(`?since=${new Date(midnight - 6 * DAY).toISOString()}`)).toBe(
      await counted(owner.accountId, new Date(midnight - 6 * DAY)),
    )
    expect((await get('/v1/audit-log', other.headers)).json().meta.total).toBe(await counted(other.accountId))
  })

  it("the sites' total follows creations and deletions, on every page and past the last", async () => {
    const owner = await makeAccount(app, 'max')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method: 'POST', url: '/v1/sites', headers: owner.headers, payload: { name: `Totals ${i}` } })
      expect(res.statusCode).toBe(201)
      ids.push(res.json().id as string)
    }
    const page = async (query: string) =>
      (await get(`/v1/sites${query}`, owner.headers)).json() as { data: Array<{ id: string }>; meta: { total: number } }
    expect((await page('')).meta.total).toBe(5)
    expect((await page('?per_page=2&page=2')).data.map((s) => s.id)).toEqual(ids.slice(2, 4))
    expect((await page('?per_page=2&page=3')).meta.total).toBe(5)
    expect(await page('?per_page=2&page=4')).toEqual({ data: [], meta: { total: 5, page: 4, per_page: 2 } })

    const deleted = await app.inject({ method: 'DELETE', url: `/v1/sites/${ids[1]}`, headers: owner.headers })
    expect(deleted.statusCode).toBe(204)
    const after = await page('')
    expect(after.meta.total).toBe(4)
    expect(after.data.map((s) => s.id)).toEqual([ids[0], ...ids.slice(2)])

    const stranger = await makeAccount(app, 'max')
    expect(await page('?per_page=1')).toMatchObject({ meta: { total: 4 } })
    expect((await get('/v1/sites', stranger.headers)).json()).toEqual({ data: [], meta: { total: 0, page: 1, per_page: 20 } })
  })
})
