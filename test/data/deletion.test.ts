import { request as httpRequest } from 'node:http'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { eraseAccount } from '../../src/domain/your-data/deletion.ts'
import { DESKTOP, haveBrowser, launchBrowser } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { bakerySite, buildSite } from '../sites/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { makeTeam, type Team } from '../teams/helpers.ts'
import { expectProblem, formBrowser, httpClient } from './http.ts'

// Deleting an account (DESIGN.md 19) over real HTTP: typed name, 14 days suspended (sites offline,
// the way back offered), restore, then the erase that leaves nothing personal, table by table.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
const port = Number(new URL(base).port)

const onSite = (host: string, path = '/'): Promise<number> =>
  new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
      .on('error', reject)
      .end()
  })

/** A team with a live site, its content, a lead, a page history, a redirect, an export and tokens in use. */
async function busyTeam(host: string) {
  const team = await makeTeam(app, 'pro')
  const site = await bakerySite(app, { accountId: team.accountId, hostname: host })
  expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })
  const api = httpClient(base, team.owner.api.authorization)
  const consent = { version: CONSENT_VERSION, digest: 'a'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
  await insertLead(app.db, app.keyring, { siteId: site.id, sessionId: null, email: 'ana@example.com', consent, source: 'contact_form' })
  const page = (await api('GET', `/v1/sites/${site.id}/pages`)).json.data[0]
  expect((await api('PATCH', `/v1/pages/${page.id}`, { title: 'Changed' })).status).toBe(200)
  expect((await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/old', to: '/' })).status).toBe(201)
  expect((await api('POST', '/v1/account/exports')).status).toBe(202)
  await eventually(async () => expect(await onSite(host)).toBe(200), 3000)
  return { team, site, api }
}

describe('deleting an account', () => {
  it('asks for the account’s name, suspends it (sites offline, the way back offered) and restores it as it was', {
    timeout: 90_000,
  }, async () => {
    const host = 'delete-restore.example'
    const { team, site, api } = await busyTeam(host)
    const owner = formBrowser(base, team.owner.cookie)
    const page = await owner.get('/app/your-data')
    expect(page.body).toContain('Delete this account')
    expect(page.body).toContain(team.owner.email)

    const wrong = await owner.post('/app/your-data/delete', { confirm: 'my bakery' })
    expect(wrong.status).toBe(422)
    expect(wrong.body).toContain('value="my bakery"')
    expect(wrong.body).toContain('aria-invalid="true"')
    expect(wrong.body).toContain('This is not the account')
    expect((await app.db.selectFrom('sites').select('status').where('id', '=', site.id).executeTakeFirstOrThrow()).status).toBe('live')
    // An editor may not delete the account.
    expect((await formBrowser(base, team.editor.cookie).post('/app/your-data/delete', { confirm: team.owner.email })).status).toBe(403)

    const deleted = await owner.post('/app/your-data/delete', { confirm: ` ${team.owner.email.toUpperCase()} ` })
    expect([deleted.status, deleted.location]).toEqual([303, '/app'])
    await eventually(async () => expect(await onSite(host)).not.toBe(200), 3000)
    const suspended = await owner.get('/app')
    expect(suspended.body).toContain('This account is being deleted')
    expect(suspended.body).toContain('Restore this account')
    const viewer = await formBrowser(base, team.viewer.cookie).get('/app/sites')
    expect(viewer.body).toContain('Only an owner of the account can restore it.')
    expect(viewer.body).not.toContain('Restore this account')
    // Nothing can be changed meanwhile in the dashboard.
    const editor = formBrowser(base, team.editor.cookie)
    await editor.get('/app/accounts')
    expect((await editor.post(`/app/sites/${site.id}/redirects`, { from: '/x', to: '/', status: '301' })).status).toBe(409)

    // The account's API tokens answer nothing meanwhile, on /v1 and GraphQL alike, reads included.
    for (const path of ['/v1/sites', `/v1/sites/${site.id}`, '/v1/account/billing'])
      expectProblem(await api('GET', path), 403, 'account_suspended')
    expectProblem(await api('PATCH', `/v1/sites/${site.id}`, { status: 'live' }), 403, 'account_suspended')
    expect((await app.db.selectFrom('sites').select('status').where('id', '=', site.id).executeTakeFirstOrThrow()).status).toBe('offline')
    const graphql = await api('POST', '/v1/graphql', { query: '{ viewer { id } }' })
    expect(graphql.json.errors[0].extensions.code).toBe('FORBIDDEN')
    expect(graphql.json.errors[0].message).toContain('being deleted')
    const agent = await connect(base, team.owner.mcp)
    const tool = await agent.callTool({ name: 'list_sites', arguments: {} })
    expect(tool.isError).toBe(true)
    expect(textOf(tool)).toMatch(/^account_suspended: /)

    const restored = await owner.post('/app/your-data/restore')
    expect([restored.status, restored.location]).toEqual([303, '/app/your-data?done=restored'])
    expect((await owner.get('/app/your-data?done=restored')).body).toContain('Your account was restored')
    await eventually(async () => expect(await onSite(host)).toBe(200), 3000)
    expect(
      await app.db.selectFrom('sites').select(['status', 'suspended_status']).where('id', '=', site.id).executeTakeFirstOrThrow(),
    ).toEqual({
      status: 'live',
      suspended_status: null,
    })
    // Restored, the same tokens work again at once.
    expect((await api('GET', '/v1/sites')).status).toBe(200)
    expect((await api('POST', '/v1/graphql', { query: '{ viewer { id } }' })).json).toMatchObject({
      data: { viewer: { id: team.accountId } },
    })
    const back = await agent.callTool({ name: 'list_sites', arguments: {} })
    expect(back.isError, textOf(back)).toBeFalsy()
    await agent.close()
  })

  it('erases everything after the 14 days: table by table, nothing of the account or its people remains', async () => {
    const host = 'delete-erase.example'
    const { team, site, api } = await busyTeam(host)
    const other: Team = await makeTeam(app, 'pro')
    // The editor belongs to another account too: their sign-in stays, their access here goes.
    await app.db
      .insertInto('account_members')
      .values({ account_id: other.accountId, user_id: team.editor.userId, role: 'viewer' })
      .execute()
    const owner = formBrowser(base, team.owner.cookie)
    await owner.get('/app/your-data')
    expect((await owner.post('/app/your-data/delete', { confirm: team.owner.email })).status).toBe(303)
    const job = await app.db
      .selectFrom('jobs')
      .select(['run_at'])
      .where('name', '=', 'account.erase')
      .orderBy('run_at', 'desc')
      .executeTakeFirstOrThrow()
    const days = (new Date(job.run_at).getTime() - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(13.9)
    expect(days).toBeLessThanOrEqual(14)

    // Fourteen days on, what the instance counted in memory (page views, audit records) has long been written:
    // here it is waited for, so the erase is seen to remove it too.
    await expect
      .poll(
        async () =>
          Number((await sql<{ n: string }>`select count(*) as n from stats_days where site_id = ${site.id}`.execute(app.db)).rows[0]!.n),
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0)
    await app.frame.audit.flush()
    // The 14 days pass: the erase job's run.
    await app.db.updateTable('accounts').set({ erase_after: new Date() }).where('id', '=', team.accountId).execute()
    const cancelled: string[] = []
    await eraseAccount(app.db, team.accountId, {
      cancelSubscription: async (_db, id) => void cancelled.push(id),
      forgetCounts: (id) => app.frame.forgetCounts(id),
    })
    expect(cancelled).toEqual([team.accountId])

    const account = await app.db.selectFrom('accounts').selectAll().where('id', '=', team.accountId).executeTakeFirstOrThrow()
    expect(account).toMatchObject({ plan: 'pro', quota_override: null, deletion_requested_at: null, erase_after: null })
    expect(account.erased_at).toBeInstanceOf(Date)
    // Every table, every row as text: none names the account, its site, or the people who were only its members.
    const gone = [team.accountId, site.id, team.owner.userId, team.viewer.userId, team.owner.tokenId]
    const { rows: tables } = await sql<{ table_name: string }>`select table_name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(app.db)
    expect(tables.length).toBeGreaterThan(30)
    const remaining: string[] = []
    for (const { table_name: table } of tables) {
      if (table === 'accounts' || table === 'jobs' || table.startsWith('kysely_')) continue
      for (const id of gone) {
        const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} t where t::text like ${`%${id}%`}`.execute(
          app.db,
        )
        if (Number(rows[0]!.n)) remaining.push(`${table}: ${rows[0]!.n} rows naming ${id}`)
      }
    }
    expect(remaining).toEqual([])
    // The job queue keeps only the account's id (no personal data) in what ran for it.
    const jobs = await app.db
      .selectFrom('jobs')
      .select(['name', 'payload'])
      .where(sql<boolean>`payload::text like ${`%${team.accountId}%`}`)
      .execute()
    expect(jobs.every((j) => j.name === 'account.erase')).toBe(true)
    // The editor keeps their sign-in for the other account, not this one.
    expect(await app.db.selectFrom('users').select('id').where('id', '=', team.editor.userId).executeTakeFirst()).toBeTruthy()
    expect(await app.db.selectFrom('account_members').select('account_id').where('user_id', '=', team.editor.userId).execute()).toEqual([
      { account_id: other.accountId },
    ])
    // The account's tokens and sessions answer nothing; its site's host serves nothing.
    expect((await api('GET', '/v1/sites')).status).toBe(401)
    expect(await onSite(host)).not.toBe(200)
    expect((await fetch(`${base}/app`, { headers: { cookie: team.owner.cookie }, redirect: 'manual' })).status).toBe(303)
  })

  it('a person deletes their own sign-in; the last owner of an account is refused', async () => {
    const team = await makeTeam(app, 'pro')
    const owner = formBrowser(base, team.owner.cookie)
    expect((await owner.get('/app/accounts/delete-sign-in')).body).toContain('Delete my sign-in')
    const refused = await owner.post('/app/accounts/delete-sign-in')
    expect(refused.status).toBe(409)
    expect(refused.body).toContain('last owner')
    expect(await app.db.selectFrom('users').select('id').where('id', '=', team.owner.userId).executeTakeFirst()).toBeTruthy()

    const editor = formBrowser(base, team.editor.cookie)
    await editor.get('/app/accounts/delete-sign-in')
    const done = await editor.post('/app/accounts/delete-sign-in')
    expect([done.status, done.location]).toEqual([303, '/signin'])
    expect(await app.db.selectFrom('users').select('id').where('id', '=', team.editor.userId).executeTakeFirst()).toBeUndefined()
    expect(await app.db.selectFrom('account_members').select('user_id').where('user_id', '=', team.editor.userId).execute()).toEqual([])
    expect((await fetch(`${base}/app`, { headers: { cookie: team.editor.cookie }, redirect: 'manual' })).status).toBe(303)
    expectProblem(await httpClient(base, team.editor.api.authorization)('GET', '/v1/sites'), 401, 'invalid_token')
  })
})

describe.skipIf(!haveBrowser || onPostgres)('deleting and restoring in Chromium without JavaScript', { timeout: 120_000 }, () => {
  it('the owner deletes the account by typing its name, signs in again and restores it', async () => {
    const host = 'delete-browser.example'
    const { team } = await busyTeam(host)
    const browser = await launchBrowser()
    const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false })
    const [name, value] = team.owner.cookie.split(';')[0]!.split('=') as [string, string]
    await context.addCookies([{ name, value, url: base }])
    const page = await context.newPage()
    await page.goto(`${base}/app/accounts`)
    await page.getByRole('link', { name: 'Your data' }).click()
    await page.getByLabel('The account’s name').fill('not it')
    await page.getByRole('button', { name: 'Delete this account' }).click()
    expect(await page.locator('main').textContent()).toContain('This is not the account')
    await page.getByLabel('The account’s name').fill(team.owner.email)
    await page.getByRole('button', { name: 'Delete this account' }).click()
    await page.waitForURL(`${base}/app`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This account is being deleted')
    await eventually(async () => expect(await onSite(host)).not.toBe(200), 3000)
    // Coming back later (any page of the dashboard) offers the way back.
    await page.goto(`${base}/app/sites`)
    await page.getByRole('button', { name: 'Restore this account' }).click()
    await page.waitForURL(`${base}/app/your-data?done=restored`)
    expect(await page.locator('main').textContent()).toContain('Your account was restored')
    await eventually(async () => expect(await onSite(host)).toBe(200), 3000)
    await browser.close()
  })
})
