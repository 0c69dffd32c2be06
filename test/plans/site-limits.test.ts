import type { Client } from '@modelcontextprotocol/client'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { planEntitlements } from '../../src/domain/accounts/entitlements.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { webCookieNames } from '../../src/domain/accounts/web-sessions.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import { formToken, post, signedIn } from '../dashboard/helpers.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { mcpToken, owner, type Owner } from './helpers.ts'

// Sites per plan (DESIGN.md 12), read from the price list: one more is refused before anything is
// stored, with 403 plan_limit on /v1, the same reason as an MCP tool error, and the upgrade path
// on the dashboard's form. The limit lives in the one domain function every room calls.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const count = async (accountId: string) =>
  Number(
    (
      await app.db
        .selectFrom('sites')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  )

async function mcpClient(who: Owner): Promise<Client> {
  return connect(base, await mcpToken(app, who))
}

/** Creates sites straight through the domain function until `n` exist. */
async function fill(accountId: string, n: number) {
  for (let i = await count(accountId); i < n; i++) await createAccountSite(app.db, accountId, { name: `Site ${i + 1}` })
}

const v1 = (headers: Record<string, string>, payload: object, key?: string) =>
  app.inject({ method: 'POST', url: '/v1/sites', headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) }, payload })

describe('sites per plan', () => {
  it("the limits are the price list's: free 1, lite 1, plus 3, pro 10, max unlimited", () => {
    expect(Object.fromEntries((['free', 'lite', 'plus', 'pro', 'max'] as Plan[]).map((p) => [p, planEntitlements(p).sites]))).toEqual({
      free: 1,
      lite: 1,
      plus: 3,
      pro: 10,
      max: null,
    })
  })

  it('pro: the tenth site is made on /v1 and MCP, the eleventh refused with plan_limit naming the account and the plan that allows it on /v1, MCP and GraphQL, nothing stored', async () => {
    const who = await owner(app, 'pro-limit@example.com', 'pro')
    await fill(who.accountId, 8)
    const ninth = await v1(who.headers, { name: 'Ninth' })
    expect(ninth.statusCode, ninth.body).toBe(201)
    const client = await mcpClient(who)
    const tenth = await client.callTool({ name: 'create_site', arguments: { name: 'Tenth' } })
    expect(tenth.isError, textOf(tenth)).toBeFalsy()
    expect(await count(who.accountId)).toBe(10)

    const refused = await v1(who.headers, { name: 'Eleventh' }, 'eleventh-site')
    expect(refused.statusCode).toBe(403)
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    const problem = refused.json() as Json
    expect(problem).toMatchObject({ status: 403, code: 'plan_limit', type: 'urn:problem-type:plan_limit' })
    expect(problem.detail).toBe(
      `The account ${who.accountId} is on plan pro, which allows 10 sites, and has 10; plan max allows unlimited sites`,
    )
    expect(refused.headers['x-ratelimit-limit']).toBeDefined()

    const tool = await client.callTool({ name: 'create_site', arguments: { name: 'Eleventh' } })
    expect(tool.isError).toBe(true)
    expect(textOf(tool)).toBe(`plan_limit: ${problem.detail}`)
    // GraphQL: FORBIDDEN with the reason plan_limit and the same message.
    const graphql = await fetch(`${base}/v1/graphql`, {
      method: 'POST',
      headers: { ...who.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($input: CreateSiteInput!) { createSite(input: $input) { id } }',
        variables: { input: { name: 'Eleventh' } },
      }),
    })
    const answer = (await graphql.json()) as Json
    expect(answer.data).toEqual({ createSite: null })
    expect(answer.errors).toEqual([
      expect.objectContaining({
        message: problem.detail,
        extensions: expect.objectContaining({ code: 'FORBIDDEN', reason: 'plan_limit' }),
      }),
    ])
    expect(await count(who.accountId)).toBe(10)
    expect(
      await app.db.selectFrom('sites').select('id').where('account_id', '=', who.accountId).where('name', '=', 'Eleventh').execute(),
    ).toEqual([])
    // Within the limit again (a site deleted), a new request makes the site; the refused one's key replays its refusal.
    const list = (await app.inject({ method: 'GET', url: '/v1/sites?per_page=1', headers: who.headers })).json() as Json
    expect((await app.inject({ method: 'DELETE', url: `/v1/sites/${list.data[0].id}`, headers: who.headers })).statusCode).toBe(204)
    const replayed = await v1(who.headers, { name: 'Eleventh' }, 'eleventh-site')
    expect([replayed.statusCode, replayed.headers['idempotent-replayed']]).toEqual([403, 'true'])
    expect((await v1(who.headers, { name: 'Eleventh' }, 'eleventh-site-again')).statusCode).toBe(201)
    await client.close()
  })

  it('two creations racing for the last place: one is made, the other refused', async () => {
    const who = await owner(app, 'race-limit@example.com', 'pro')
    await fill(who.accountId, 9)
    const answers = await Promise.all([v1(who.headers, { name: 'A' }), v1(who.headers, { name: 'B' }), v1(who.headers, { name: 'C' })])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 403, 403])
    expect(await count(who.accountId)).toBe(10)
  })

  it('max: no limit', async () => {
    const who = await owner(app, 'max-limit@example.com', 'max')
    await fill(who.accountId, 11)
    expect((await v1(who.headers, { name: 'Twelfth' })).statusCode).toBe(201)
    const client = await mcpClient(who)
    expect((await client.callTool({ name: 'create_site', arguments: { name: 'Thirteenth' } })).isError).toBeFalsy()
    await client.close()
    expect(await count(who.accountId)).toBe(13)
  })

  for (const [plan, limit] of [
    ['free', 1],
    ['lite', 1],
    ['plus', 3],
  ] as const) {
    it(`${plan}: ${limit} ${limit === 1 ? 'site' : 'sites'} in the dashboard, one more refused there with the upgrade path; /v1 and MCP refuse the change by plan`, async () => {
      const person = await signedIn(app, `${plan}-limit@example.com`)
      const accountId = person.user.accountId
      await updateAccount(app.db, accountId, { plan })
      const cookie = person.cookie.replace(/^wps_session=/, `${webCookieNames(app.config.BASE_URL).session}=`)
      await fill(accountId, limit)
      const { cookie: withCsrf, token } = await formToken(app, cookie, '/app/sites/new')
      const refused = await post(app, '/app/sites', withCsrf, { _csrf: token, name: 'One too many', locales: 'en', default_locale: 'en' })
      expect(refused.statusCode).toBe(403)
      const name = { free: 'Free', lite: 'Lite', plus: 'Plus' }[plan]
      expect(refused.body).toContain(
        `Your account is on plan ${name}, which allows ${limit} ${limit === 1 ? 'site' : 'sites'}, and has ${limit}`,
      )
      expect(refused.body).toContain(plan === 'plus' ? 'plan Pro allows 10 sites' : 'plan Plus allows 3 sites')
      expect(refused.body).not.toContain(accountId)
      expect(await count(accountId)).toBe(limit)
      // The overview says the same before anyone tries.
      const overview = await app.inject({ method: 'GET', url: '/app', headers: { cookie } })
      expect(overview.body).toContain(`You have ${limit} of the ${limit} ${limit === 1 ? 'site' : 'sites'} plan`)

      const own = await owner(app, `${plan}-limit@example.com`, plan)
      expect((await v1(own.headers, { name: 'Over the API' })).json()).toMatchObject({ status: 403, code: 'plan_required' })
      const client = await mcpClient(own)
      const tool = await client.callTool({ name: 'create_site', arguments: { name: 'Over MCP' } })
      expect(textOf(tool)).toMatch(/^plan_required: /)
      await client.close()
      expect(await count(accountId)).toBe(limit)
    })
  }
})
