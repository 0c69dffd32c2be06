import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { webCookieNames } from '../../src/domain/accounts/web-sessions.ts'
import { formToken, post, signedIn } from '../dashboard/helpers.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'
import { mcpToken, owner } from './helpers.ts'

// A downgrade deletes nothing (DESIGN.md 12): the sites beyond the new plan's limit stay served
// as they are, but cannot be published (rebuilt, rolled back, brought back live) until the
// account is within its limit again, and every room says so with the account and the plan.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

describe('a downgrade that leaves sites over the limit', () => {
  it(
    'keeps every site served, refuses to publish the newest beyond the limit on /v1, MCP and the dashboard, and allows it again once within',
    async () => {
      const who = await owner(app, 'downgraded@example.com', 'max')
      const oldest = await bakerySite(app, { accountId: who.accountId, hostname: 'oldest.downgrade.example' })
      for (let i = 2; i <= 10; i++) await createSite(app.db, { name: `Site ${i}`, accountId: who.accountId })
      const newest = await bakerySite(app, { accountId: who.accountId, hostname: 'newest.downgrade.example' })
      const firstBuild = await buildSite(app, newest.id)
      expect(firstBuild.status).toBe('succeeded')
      expect((await buildSite(app, newest.id)).status).toBe('succeeded')
      expect((await buildSite(app, oldest.id)).status).toBe('succeeded')

      await updateAccount(app.db, who.accountId, { plan: 'pro' })
      const v1 = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
        app.inject({ method, url, headers: who.headers, ...(payload ? { payload } : {}) })

      // Nothing deleted, everything served.
      expect((await v1('GET', '/v1/sites')).json().meta.total).toBe(11)
      const served = await app.inject({ method: 'GET', url: '/', headers: { host: 'newest.downgrade.example' } })
      expect(served.statusCode).toBe(200)
      expect(served.body).toContain('Hansen Bakery')

      // The newest cannot be published.
      const refused = await v1('POST', `/v1/sites/${newest.id}/rebuild`)
      expect(refused.statusCode).toBe(403)
      const problem = refused.json() as Json
      expect(problem.code).toBe('plan_limit')
      expect(problem.detail).toBe(
        `The site ${newest.id} is over the limit of the account ${who.accountId}: plan pro allows 10 sites and the account has 11. ` +
          'It stays served as it is, but cannot be published until the account has at most 10 sites (delete one) or moves up; plan max allows unlimited sites',
      )
      expect((await v1('POST', `/v1/sites/${newest.id}/rollback`, { build_id: firstBuild.id })).json()).toMatchObject({
        code: 'plan_limit',
        detail: problem.detail,
      })
      const client = await connect(base, await mcpToken(app, who))
      const tool = await client.callTool({ name: 'publish_site', arguments: { site_id: newest.id } })
      expect(tool.isError).toBe(true)
      expect(textOf(tool)).toBe(`plan_limit: ${problem.detail}`)
      expect(await app.db.selectFrom('builds').select('id').where('site_id', '=', newest.id).execute()).toHaveLength(2)
      // Taken offline, it cannot be brought back live either.
      expect((await v1('PATCH', `/v1/sites/${newest.id}`, { status: 'offline' })).statusCode).toBe(200)
      expect((await v1('PATCH', `/v1/sites/${newest.id}`, { status: 'live' })).json()).toMatchObject({ code: 'plan_limit' })

      // The oldest ten are within the limit: they publish as before.
      expect((await v1('POST', `/v1/sites/${oldest.id}/rebuild`)).statusCode).toBe(202)

      // The dashboard says so: the overview's notice, and the site's page after a refused publish.
      const person = await signedIn(app, who.email)
      const cookie = person.cookie.replace(/^wps_session=/, `${webCookieNames(app.config.BASE_URL).session}=`)
      const overview = await app.inject({ method: 'GET', url: '/app', headers: { cookie } })
      expect(overview.body).toContain(
        'Your account has 11 sites, more than the 10 sites plan Pro allows. Every site stays online as it is, but only the oldest 10 can be published',
      )
      const { cookie: withCsrf, token } = await formToken(app, cookie, `/app/sites/${newest.id}`)
      const publish = await post(app, `/app/sites/${newest.id}/rebuild`, withCsrf, { _csrf: token })
      expect(publish.statusCode).toBe(403)
      expect(publish.body).toContain('This site is over your account’s limit: plan Pro allows 10 sites and the account has 11.')
      expect(publish.body).not.toContain(newest.id + ' is')
      expect(publish.body).not.toContain(who.accountId)

      // One site deleted: within the limit again, the newest publishes.
      const sixth = (await v1('GET', '/v1/sites?per_page=1&page=6')).json().data[0]
      expect((await v1('DELETE', `/v1/sites/${sixth.id}`)).statusCode).toBe(204)
      expect((await v1('PATCH', `/v1/sites/${newest.id}`, { status: 'live' })).statusCode).toBe(200)
      const again = await client.callTool({ name: 'publish_site', arguments: { site_id: newest.id } })
      expect(again.isError, textOf(again)).toBeFalsy()
      await client.close()
    },
    SETUP_TIMEOUT_MS,
  )

  it('counts a site made earlier in the same millisecond as older', async () => {
    const who = await owner(app, 'same-millisecond@example.com', 'pro')
    const sites = []
    for (let i = 1; i <= 11; i++) sites.push(await createSite(app.db, { name: `Site ${i}`, accountId: who.accountId }))
    // Ten sites a second apart, the tenth and the eleventh 300 µs apart within one millisecond.
    for (const [i, site] of sites.entries()) {
      const at = i < 10 ? `2026-01-01 00:00:0${i}.123100+00` : '2026-01-01 00:00:09.123400+00'
      await sql`update sites set created_at = ${at}::timestamptz where id = ${site.id}`.execute(app.db)
    }
    const rebuild = (id: string) => app.inject({ method: 'POST', url: `/v1/sites/${id}/rebuild`, headers: who.headers })
    expect((await rebuild(sites[10]!.id)).json()).toMatchObject({ code: 'plan_limit' })
    expect((await rebuild(sites[9]!.id)).statusCode).toBe(202)
  })
})
