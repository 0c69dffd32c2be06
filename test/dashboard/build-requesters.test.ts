import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { queueBuild } from '../../src/domain/sites/builds.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { until } from '../helpers/polling.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

// The builds of a site say when and by whom they were asked for: the member from the dashboard,
// an API token from /v1, nobody for one the platform queued itself. Who is taken at commit from
// the audit record the request wrote (migration 2026-11-28T1530).
describe('who asked for each build', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'publisher@example.com')
  await updateAccount(app.db, owner.user.accountId, { plan: 'pro' })
  const site = await createAccountSite(app.db, owner.user.accountId, { name: 'Kiosk' })
  await createPage(app.db, site, { path: '/', title: 'Kiosk am Markt' })
  const { cookie, form } = await dashboardBrowser(app, owner, `/app/sites/${site.id}`)
  const requesters = async () => {
    const res = await app.inject({ method: 'GET', url: `/app/sites/${site.id}`, headers: { cookie } })
    const $ = cheerio.load(res.body)
    return $('td[data-label="By"]')
      .map((_i, td) => $(td).text())
      .get()
  }
  /** One build at a time per site: waits for the last to finish before asking for the next. */
  const settle = () =>
    until(
      async () =>
        (
          await app.db
            .selectFrom('builds')
            .select('id')
            .where('site_id', '=', site.id)
            .where('status', 'in', ['queued', 'running'])
            .execute()
        ).length === 0,
      20_000,
      'the build to finish',
    )

  it('names the member, the API token and the platform, newest first, with the time asked', async () => {
    expect((await post(app, `/app/sites/${site.id}/rebuild`, cookie, form())).statusCode).toBe(303)
    await settle()
    const { secret } = await createApiToken(app.db, { accountId: owner.user.accountId, name: 'ci', scopes: ['write:pages'] })
    const viaApi = await app.inject({ method: 'POST', url: `/v1/sites/${site.id}/rebuild`, headers: { authorization: `Bearer ${secret}` } })
    expect(viaApi.statusCode, viaApi.body).toBeLessThan(300)
    await settle()
    await queueBuild(app.db, site.id)
    expect(await requesters()).toEqual(['the platform', 'an API token', 'publisher@example.com'])
    const res = await app.inject({ method: 'GET', url: `/app/sites/${site.id}`, headers: { cookie, 'accept-language': 'de' } })
    const $ = cheerio.load(res.body)
    expect($('td[data-label="Von"]').eq(1).text()).toBe('einem API-Token')
    expect($('td[data-label="Angefordert"]').first().text()).toMatch(/\d{4}/)
  })

  it('names someone who is no longer a member as a former member, never by their address', async () => {
    const other = await signedIn(app, 'left-the-team@example.com')
    const [latest] = await app.db
      .selectFrom('builds')
      .select('id')
      .where('site_id', '=', site.id)
      .orderBy('created_at', 'desc')
      .limit(1)
      .execute()
    await app.db.updateTable('builds').set({ user_id: other.user.id }).where('id', '=', latest!.id).execute()
    expect(await requesters()).toEqual(['a former member', 'an API token', 'publisher@example.com'])
  })
})
