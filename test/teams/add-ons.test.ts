import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import { addDomain } from '../../src/domain/sites/domains.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { queueDueReports } from '../../src/domain/seo-reports/reports.ts'
import { periodOf } from '../../src/domain/seo-reports/schedule.ts'
import { serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { buildTestApp } from '../helpers/app.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { until } from '../helpers/polling.ts'
import { makeTeam } from './helpers.ts'

// The add-ons of the price list on a team's account, on both databases: premium_seo_reports turns
// the scheduled report into the 50-page premium audit whose pages' findings the mail and the
// dashboard show; extra_domain allows one more own domain to whoever of the team adds it.
describe('add-ons of a team', async () => {
  const smtp = await startSmtpServer()
  const { app } = await buildTestApp({
    env: {
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      BASE_URL: 'http://app.platform.test',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Web Presence <reports@presence.test>',
    },
  })

  /** Queues the monthly reports due by the end of March 2031 and waits until each is done and mailed. */
  async function monthlyReports(siteIds: string[]) {
    const period = periodOf('monthly', new Date('2031-03-10T00:00:00Z'))
    const queued = (await queueDueReports(app.db, app.config.SITES_DOMAIN, new Date(period.end.getTime() - 2 * 3_600_000))).filter((a) =>
      siteIds.includes(a.site_id),
    )
    expect(queued.map((a) => a.site_id).sort()).toEqual([...siteIds].sort())
    return until(
      async () => {
        const rows = await app.db
          .selectFrom('site_audits')
          .selectAll()
          .where(
            'id',
            'in',
            queued.map((a) => a.id),
          )
          .execute()
        const failed = rows.find((row) => row.state === 'failed')
        if (failed) throw new Error(failed.error ?? 'failed')
        return rows.every((row) => row.state === 'done' && row.mailed_at !== null)
          ? siteIds.map((id) => rows.find((row) => row.site_id === id)!)
          : undefined
      },
      60_000,
      'the reports',
    )
  }

  it('premium_seo_reports: the scheduled report crawls the pages, and the mail and the dashboard show each page’s findings', async () => {
    const fixture = await serveFixtureForFile('premium-defects')
    const copy = await serveFixtureForFile('premium-defects')
    const premium = await makeTeam(app, 'lite', 'premium')
    await setAddOn(app.db, { accountId: premium.accountId, addOn: 'premium_seo_reports', on: true })
    const plain = await makeTeam(app, 'lite', 'plain')
    const premiumSite = await createSite(app.db, {
      name: 'Premium Bakery',
      hostname: fixture.domain,
      accountId: premium.accountId,
      status: 'live',
    })
    const plainSite = await createSite(app.db, { name: 'Plain Bakery', hostname: copy.domain, accountId: plain.accountId, status: 'live' })

    const [premiumAudit, plainAudit] = await monthlyReports([premiumSite.id, plainSite.id])
    const reportOf = async (id: string | null) =>
      (await app.db.selectFrom('audit_reports').select(['premium', 'report']).where('id', '=', id!).executeTakeFirstOrThrow()) as {
        premium: boolean
        report: { pages_checked: number; findings: Array<{ page?: string; rule: string }> }
      }
    const deep = await reportOf(premiumAudit!.report_id)
    const shallow = await reportOf(plainAudit!.report_id)
    expect(deep.premium).toBe(true)
    expect(deep.report.pages_checked).toBeGreaterThan(3)
    expect(deep.report.findings.map((f) => f.rule)).toContain('seo.broken_links')
    expect(shallow.premium).toBe(false)
    expect(shallow.report.pages_checked).toBe(1)

    // The owner's mail: the pages checked and the findings of each page.
    const mail = mailText(await until(async () => smtp.to(premium.owner.email).at(-1), 20_000, 'the mail'))
    expect(mail).toContain(`Premium audit: ${deep.report.pages_checked} pages checked.`)
    const pages = [
      ...new Set(deep.report.findings.map((f) => f.page).filter((p): p is string => p !== undefined && p !== `http://${fixture.domain}/`)),
    ]
    expect(pages.length).toBeGreaterThan(0)
    expect(mail).toMatch(/Findings by page:\n- http:\/\/.+\n {2}\* .+/)
    for (const page of pages.slice(0, 3)) expect(mail).toContain(`- ${page}`)
    const plainMail = mailText(await until(async () => smtp.to(plain.owner.email).at(-1), 20_000, 'the plain mail'))
    expect(plainMail).toContain('Your monthly SEO report for Plain Bakery')
    expect(plainMail).not.toContain('Premium audit')

    // The dashboard's report page, for every member: each page with its findings.
    for (const member of [premium.owner, premium.viewer]) {
      const page = await app.inject({ method: 'GET', url: `/app/sites/${premiumSite.id}/reports`, headers: { cookie: member.cookie } })
      expect(page.statusCode).toBe(200)
      expect(page.body).toContain('Findings by page')
      expect(page.body).toContain(`The premium audit checked ${deep.report.pages_checked} pages`)
      for (const url of pages) expect(page.body).toContain(url)
    }
    const plainPage = await app.inject({
      method: 'GET',
      url: `/app/sites/${plainSite.id}/reports`,
      headers: { cookie: plain.owner.cookie },
    })
    expect(plainPage.statusCode).toBe(200)
    expect(plainPage.body).not.toContain('Findings by page')
    // Another account's report stays not found.
    expect(
      (await app.inject({ method: 'GET', url: `/app/sites/${premiumSite.id}/reports`, headers: { cookie: plain.owner.cookie } }))
        .statusCode,
    ).toBe(404)
  }, 120_000)

  it('extra_domain: one more own domain for the account, whichever member adds it, refused with plan_limit beyond it', async () => {
    const team = await makeTeam(app, 'plus', 'domains')
    await updateAccount(app.db, team.accountId, { plan: 'pro' })
    const site = await createSite(app.db, { name: 'Domains', accountId: team.accountId })
    for (let i = 1; i <= 10; i++) await addDomain(app.db, site.id, `d${i}.team-domains.example`)
    const add = (hostname: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/graphql',
        headers: { ...team.editor.api, 'content-type': 'application/json' },
        payload: {
          query: 'mutation($input: AddDomainInput!) { addDomain(input: $input) { hostname } }',
          variables: { input: { siteId: site.id, hostname } },
        },
      })
    const refused = (await add('d11.team-domains.example')).json() as {
      errors: Array<{ message: string; extensions: { code: string; reason: string } }>
    }
    expect(refused.errors[0]!.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'plan_limit' })
    expect(refused.errors[0]!.message).toContain(
      `The account ${team.accountId} is on plan pro, which includes 10 own domains, and has 10; one more extra_domain add-on`,
    )

    await setAddOn(app.db, { accountId: team.accountId, addOn: 'extra_domain', on: true, quantity: 1 })
    expect(((await add('d11.team-domains.example')).json() as { data: unknown }).data).toEqual({
      addDomain: { hostname: 'd11.team-domains.example' },
    })
    const again = (await add('d12.team-domains.example')).json() as { errors: Array<{ message: string; extensions: { reason: string } }> }
    expect(again.errors[0]!.extensions.reason).toBe('plan_limit')
    expect(again.errors[0]!.message).toContain('(with the extra_domain add-on ×1: 11), and has 11')
    // A viewer is refused for their role before any count.
    const viewer = await app.inject({
      method: 'POST',
      url: '/v1/graphql',
      headers: { ...team.viewer.api, 'content-type': 'application/json' },
      payload: {
        query: 'mutation($input: AddDomainInput!) { addDomain(input: $input) { hostname } }',
        variables: { input: { siteId: site.id, hostname: 'd13.team-domains.example' } },
      },
    })
    expect((viewer.json() as { errors: Array<{ extensions: { reason: string } }> }).errors[0]!.extensions.reason).toBe('role_required')
  })
})
