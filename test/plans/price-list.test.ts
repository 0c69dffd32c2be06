import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { planEntitlements } from '../../src/domain/accounts/entitlements.ts'
import { addDomain } from '../../src/domain/sites/domains.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { PLANS, type Plan } from '../../src/domain/accounts/plans.ts'
import { retentionText } from '../../src/domain/stats/retention.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { signedIn } from '../dashboard/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { storageText } from '../../src/public/landing.ts'
import { owner } from './helpers.ts'

// The price list (src/domain/accounts/pricing-data.json) is the one source of truth (DESIGN.md 12): this
// file reads it as data and checks that /api/pricing, the enforcement, the dashboard's plan text
// and the assistant's answers all say what it says. Change a number there and every room follows;
// a room that kept its own copy fails here.
const { app } = await buildTestApp()

interface ListedPlan {
  id: Plan
  name: string
  monthly_price_cents: number
  api_access: 'none' | 'read' | 'read_write'
  webhooks: boolean
  api_requests_per_hour: number
  sites: number | null
  own_domains: number | null
  seats: number | null
  seo_reports: 'none' | 'monthly' | 'weekly'
  stats_retention_days: number
  storage_mb: number
}
const list = JSON.parse(readFileSync(new URL('../../src/domain/accounts/pricing-data.json', import.meta.url), 'utf8')) as {
  plans: ListedPlan[]
  add_ons: Array<{ id: string; available_from: Plan; per_unit: boolean }>
}
const listed = (plan: Plan) => list.plans.find((p) => p.id === plan)!

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

describe('every room says what the price list says', () => {
  it('/api/pricing serves the list, its entitlements included; the entitlements module reads the same', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/pricing' })
    expect(res.statusCode).toBe(200)
    const body = res.json() as Json
    expect(body.plans.map((p: Json) => p.id)).toEqual([...PLANS])
    for (const plan of list.plans) {
      const { yearly_price_cents: _yearly, ...served } = body.plans.find((p: Json) => p.id === plan.id)
      expect(served).toEqual(plan)
      expect(planEntitlements(plan.id)).toEqual({
        plan: plan.id,
        name: plan.name,
        apiAccess: plan.api_access,
        apiRequestsPerHour: plan.api_requests_per_hour,
        webhooks: plan.webhooks,
        sites: plan.sites,
        ownDomains: plan.own_domains,
        seats: plan.seats,
        seoReports: plan.seo_reports,
        statsRetentionDays: plan.stats_retention_days,
        storageMb: plan.storage_mb,
      })
    }
    expect(body.add_ons).toEqual(list.add_ons)
  })

  for (const plan of PLANS) {
    it(`${plan}: the sites, own domains, API access and webhooks enforced are the list's`, async () => {
      const entry = listed(plan)
      const who = await owner(app, `${plan}-list@example.com`, plan)
      // Sites: as many as listed (a dozen stands for unlimited), then plan_limit.
      const sites = entry.sites ?? 12
      const made = []
      for (let i = 0; i < sites; i++) made.push(await createAccountSite(app.db, who.accountId, { name: `Site ${i + 1}` }))
      if (entry.sites === null) expect((await createAccountSite(app.db, who.accountId, { name: 'One more' })).id).toMatch(/^site_/)
      else await expect(createAccountSite(app.db, who.accountId, { name: 'One more' })).rejects.toMatchObject({ code: 'PLAN_LIMIT' })
      // Own domains: as many as listed (a dozen for unlimited), then plan_limit; none at all is plan_required.
      const domains = entry.own_domains ?? 12
      for (let i = 0; i < domains; i++) await addDomain(app.db, made[0]!.id, `d${i}.${plan}-list.example`)
      const extra = addDomain(app.db, made[0]!.id, `more.${plan}-list.example`)
      if (entry.own_domains === null) expect((await extra).status).toBe('pending')
      else await expect(extra).rejects.toMatchObject({ code: entry.own_domains === 0 ? 'PLAN_REQUIRED' : 'PLAN_LIMIT' })

      // API access and the hourly budget on /v1.
      const account = await app.inject({ method: 'GET', url: '/v1/account', headers: who.headers })
      if (entry.api_access === 'none') expect(account.json()).toMatchObject({ status: 403, code: 'plan_required' })
      else
        expect(account.json()).toMatchObject({
          plan,
          api_access: entry.api_access,
          quota: { requests_per_hour: entry.api_requests_per_hour },
        })
      const write = await app.inject({
        method: 'PATCH',
        url: `/v1/sites/${made[0]!.id}`,
        headers: who.headers,
        payload: { name: 'Renamed' },
      })
      expect(write.statusCode).toBe(entry.api_access === 'read_write' ? 200 : 403)
      const hook = await app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: who.headers,
        payload: { url: 'https://hooks.example/in' },
      })
      expect(hook.statusCode === 201).toBe(entry.webhooks)
      if (!entry.webhooks && entry.api_access !== 'none') {
        const from = list.plans.find((p) => p.webhooks)!.id
        const read = await app.inject({ method: 'GET', url: '/v1/webhooks', headers: who.headers })
        expect(read.json()).toMatchObject({
          code: 'plan_required',
          detail: `The account ${who.accountId} is on plan ${plan}, which does not allow webhooks; plan ${from} and above allow it`,
        })
      }

      // The dashboard's plan text.
      const { cookie } = await signedIn(app, `${plan}-list@example.com`)
      const overview = (await app.inject({ method: 'GET', url: '/app', headers: { cookie } })).body
      expect(overview).toContain(
        `Your plan is <strong>${entry.name}</strong>. REST API access: <strong>${{ none: 'none', read: 'read only', read_write: 'read and write' }[entry.api_access]}</strong>${entry.webhooks ? ', webhooks included' : ''}.`,
      )
      expect(overview).toContain(
        entry.sites === null
          ? `plan ${entry.name} allows any number`
          : `of the ${entry.sites} ${entry.sites === 1 ? 'site' : 'sites'} plan ${entry.name} allows`,
      )
      const domainText =
        entry.own_domains === null
          ? 'unlimited own domains'
          : entry.own_domains === 0
            ? 'none (your sites live on their platform subdomain)'
            : `${entry.own_domains} own domain${entry.own_domains === 1 ? '' : 's'}`
      const members = entry.seats === null ? 'unlimited members' : `${entry.seats} member${entry.seats === 1 ? '' : 's'}`
      expect(overview).toContain(
        `Own domains: ${domainText}. Members: ${members}. Scheduled SEO report: ${entry.seo_reports === 'none' ? 'none' : `${entry.seo_reports} for each live site`}.`,
      )
    })
  }

  it("the README's plan table is the list's", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const table = readme.split('<!-- plan table:')[1]!.split('\n\n')[0]!
    const rows = table
      .split('\n')
      .filter((line) => /^\| (free|lite|plus|pro|max) \|/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      )
    const count = (n: number | null, none = 'none') => (n === null ? 'unlimited' : n === 0 ? none : String(n))
    const access = (p: ListedPlan) =>
      p.api_access === 'none'
        ? 'none'
        : `${p.api_access === 'read' ? 'read' : 'read and write'}, ${p.api_requests_per_hour} requests an hour`
    expect(rows).toEqual(
      list.plans.map((p) => [
        p.id,
        `€${p.monthly_price_cents / 100}`,
        count(p.sites),
        count(p.own_domains, 'none (platform subdomain)'),
        count(p.seats),
        access(p),
        p.webhooks ? 'yes' : 'no',
        p.seo_reports,
        retentionText(p.stats_retention_days),
        storageText(p.storage_mb),
      ]),
    )
  })

  it("the assistant's answers about a plan name the list's price, sites, API budget and photo storage", async () => {
    const words: Record<string, string> = { 1: 'one site', 3: 'three sites', 10: 'ten sites', null: 'unlimited sites' }
    const session = await bootstrap(app, {})
    for (const entry of list.plans) {
      const res = await chat(app, session, `What does the ${entry.name} plan include and what does it cost?`)
      expect(res.statusCode, res.body).toBe(200)
      const reply = (res.json() as Json).reply as string
      expect(reply, entry.id).toContain(words[String(entry.sites)])
      if (entry.monthly_price_cents > 0) expect(reply, entry.id).toContain(`€${entry.monthly_price_cents / 100}`)
      if (entry.api_requests_per_hour > 0) expect(reply, entry.id).toContain(entry.api_requests_per_hour.toLocaleString('en'))
      expect(reply, entry.id).toContain(`${storageText(entry.storage_mb)} of storage for photos`)
    }
  })
})
