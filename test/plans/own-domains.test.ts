import type { Client } from '@modelcontextprotocol/client'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import { addDomain } from '../../src/domain/sites/domains.ts'
import { createAccountSite, createSite } from '../../src/domain/sites/sites.ts'
import { formToken, post, signedIn } from '../dashboard/helpers.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { mcpToken, owner } from './helpers.ts'

// Own domains by plan (DESIGN.md 12): none on free (its sites live on their platform subdomain),
// from lite as many as the plan includes (lite 1, plus 3, pro 10, max unlimited) plus one per
// extra_domain add-on. Every room adds domains through the same domain function.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const domainsOf = async (accountId: string) =>
  (
    await app.db
      .selectFrom('domains')
      .innerJoin('sites', 'sites.id', 'domains.site_id')
      .select('domains.hostname')
      .where('sites.account_id', '=', accountId)
      .orderBy('domains.hostname')
      .execute()
  ).map((d) => d.hostname)

/** A person on `plan` with one site, adding domains on the dashboard's domains screen. */
async function dashboardOwner(email: string, plan: 'free' | 'lite') {
  const person = await signedIn(app, email)
  const accountId = person.user.accountId
  await updateAccount(app.db, accountId, { plan })
  const site = await createAccountSite(app.db, accountId, { name: `${plan} shop` })
  const add = async (hostname: string) => {
    const { cookie, token } = await formToken(app, person.cookie, `/app/sites/${site.id}/domains`)
    return post(app, `/app/sites/${site.id}/domains`, cookie, { _csrf: token, hostname })
  }
  return { accountId, site, add }
}

describe('own domains by plan', () => {
  it('free: refused with plan_required, naming the account and plan lite; the extra_domain add-on cannot be switched on either', async () => {
    const free = await dashboardOwner('free-domains@example.com', 'free')
    const refused = await free.add('www.free-shop.example')
    expect(refused.statusCode).toBe(403)
    expect(refused.body).toContain(
      'Your account is on plan Free, which does not allow own domains (its sites live on their platform subdomain); plan Lite and above allow them.',
    )
    expect(refused.body).not.toContain(free.accountId)
    expect(await domainsOf(free.accountId)).toEqual([])
    await expect(setAddOn(app.db, { accountId: free.accountId, addOn: 'extra_domain', on: true })).rejects.toMatchObject({
      code: 'PLAN_REQUIRED',
      message: `The account ${free.accountId} is on plan free; the Extra domain add-on is available from plan lite`,
    })
  })

  it('lite: one own domain accepted, a second refused with plan_limit until an extra_domain add-on', async () => {
    const lite = await dashboardOwner('lite-domains@example.com', 'lite')
    const first = await lite.add('www.lite-shop.example')
    expect(first.statusCode, first.body).toBe(303)
    expect(first.headers['location']).toBe(`/app/sites/${lite.site.id}/domains?done=domain-added`)
    const second = await lite.add('lite-shop.example')
    expect(second.statusCode).toBe(403)
    expect(second.body).toContain(
      'Your account is on plan Lite, which includes 1 own domain, and has 1; one more domain or plan Plus (3 own domains) allows another.',
    )
    expect(second.body).not.toContain(lite.accountId)
    expect(second.body).not.toContain('extra_domain')
    expect(await domainsOf(lite.accountId)).toEqual(['www.lite-shop.example'])

    await setAddOn(app.db, { accountId: lite.accountId, addOn: 'extra_domain', on: true, quantity: 1 })
    expect((await lite.add('lite-shop.example')).statusCode).toBe(303)
    const third = await lite.add('shop.lite-shop.example')
    expect(third.statusCode).toBe(403)
    expect(third.body).toContain('which includes 1 own domain (with 1 extra domain: 2 in all), and has 2')
    expect(await domainsOf(lite.accountId)).toEqual(['lite-shop.example', 'www.lite-shop.example'])
  })

  it('pro: ten own domains over all its sites, the eleventh refused on /v1 and MCP alike, then allowed by extra_domain ×2; a downgrade keeps them all', async () => {
    const who = await owner(app, 'pro-domains@example.com', 'pro')
    const sites = [
      await createSite(app.db, { name: 'One', accountId: who.accountId }),
      await createSite(app.db, { name: 'Two', accountId: who.accountId }),
    ]
    for (let i = 1; i <= 9; i++) await addDomain(app.db, sites[i % 2]!.id, `d${i}.pro-domains.example`)
    const v1 = (hostname: string) =>
      app.inject({ method: 'POST', url: `/v1/sites/${sites[0]!.id}/domains`, headers: who.headers, payload: { hostname } })
    expect((await v1('d10.pro-domains.example')).statusCode).toBe(201)
    const refused = await v1('d11.pro-domains.example')
    expect(refused.statusCode).toBe(403)
    const problem = refused.json() as Json
    expect(problem).toMatchObject({ status: 403, code: 'plan_limit' })
    expect(problem.detail).toBe(
      `The account ${who.accountId} is on plan pro, which includes 10 own domains, and has 10; one more extra_domain add-on or plan max (unlimited own domains) allows another`,
    )

    const client: Client = await connect(base, await mcpToken(app, who))
    const tool = await client.callTool({ name: 'add_domain', arguments: { site_id: sites[1]!.id, hostname: 'd11.pro-domains.example' } })
    expect(tool.isError).toBe(true)
    expect(textOf(tool)).toBe(`plan_limit: ${problem.detail}`)
    expect(await domainsOf(who.accountId)).toHaveLength(10)

    await setAddOn(app.db, { accountId: who.accountId, addOn: 'extra_domain', on: true, quantity: 2 })
    expect((await v1('d11.pro-domains.example')).statusCode).toBe(201)
    const byTool = await client.callTool({ name: 'add_domain', arguments: { site_id: sites[1]!.id, hostname: 'd12.pro-domains.example' } })
    expect(byTool.isError, textOf(byTool)).toBeFalsy()
    expect((await v1('d13.pro-domains.example')).json()).toMatchObject({ code: 'plan_limit' })
    await client.close()

    // Down to plus (3 included): nothing is deleted, nothing more is added.
    await updateAccount(app.db, who.accountId, { plan: 'plus' })
    expect(await domainsOf(who.accountId)).toHaveLength(12)
    await expect(addDomain(app.db, sites[0]!.id, 'd13.pro-domains.example')).rejects.toMatchObject({ code: 'PLAN_LIMIT' })
  })

  it("the platform's own site has no plan", async () => {
    const platform = await app.db.selectFrom('sites').select('id').where('account_id', 'is', null).executeTakeFirstOrThrow()
    expect((await addDomain(app.db, platform.id, 'www.platform-extra.example')).status).toBe('pending')
  })
})
