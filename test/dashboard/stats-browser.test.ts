import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { siteStats } from '../../src/domain/stats/report.ts'
import { dayOf } from '../../src/domain/stats/tally.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { bakerySite, buildSite } from '../sites/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'

// The Statistics page in Chromium at phone width with JavaScript off: visits counted over real
// HTTP on the published site, then read by its owner, the period changed with the form, a list
// downloaded as CSV, a period the page does not offer refused; axe-core finds nothing serious.
const HOST = 'harbour-stats.example'
const CLIENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
]

describe.skipIf(!haveBrowser || onPostgres)('the Statistics page in Chromium without JavaScript', { timeout: 240_000 }, async () => {
  const { app, base } = await startLiveApp({ env: { STATS_FLUSH_INTERVAL_MS: '100' } })
  const browser = await launchBrowser()
  const { check, findings, checked } = await accessibilityChecker(browser, base)

  /** A visit of a published page by a browser of `agent`, from `referer` when given. */
  const visit = (path: string, agent: string, referer?: string) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(base)
      httpRequest(
        { host: url.hostname, port: url.port, path, headers: { host: HOST, 'user-agent': agent, ...(referer ? { referer } : {}) } },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode!))
        },
      )
        .on('error', reject)
        .end()
    })

  it('shows the visits counted today, changes the period, downloads a list and refuses a period it does not offer', async () => {
    const team = await makeTeam(app, 'pro')
    const site = await bakerySite(app, { accountId: team.accountId, hostname: HOST })
    expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })
    for (let i = 0; i < 12; i++)
      expect(await visit(i % 2 ? '/about' : '/', CLIENTS[i % 3]!, i === 0 ? 'https://www.google.com/search?q=bakery' : undefined)).toBe(200)
    await expect
      .poll(async () => (await siteStats(app.db, site.id, dayOf(Date.now()), dayOf(Date.now()))).totals, { timeout: 5000 })
      .toEqual({ visitors: 3, pageviews: 12, conversions: 0 })

    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
    const [name, value] = team.owner.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: base }])
    const page = await context.newPage()
    await page.goto(`${base}/app/sites/${site.id}`)
    // The site's own link (the navigation's leads to the account's statistics).
    await page.getByRole('main').getByRole('link', { name: 'Statistics', exact: true }).click()
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Statistics of Hansen Bakery')
    expect(await page.locator('.figures').textContent()).toMatch(/Visitors\s*3\s*Page views\s*12/)
    expect(await page.getByRole('img', { name: 'Visitors and page views per day, last 30 days' }).count()).toBe(1)
    expect(await page.getByRole('region', { name: 'Referrers', exact: true }).textContent()).toContain('google.com')
    expect(await page.getByRole('region', { name: 'Top pages', exact: true }).textContent()).toContain('/about')
    await page.screenshot({ path: screenshotPath('stats-phone'), fullPage: true })
    await check('statistics, 30 days', page)

    // The table of every day opens without script.
    await page.getByText('Every day as a table').click()
    expect(await page.getByRole('region', { name: 'Every day: visitors, page views, messages' }).isVisible()).toBe(true)

    await page.getByLabel('Period').selectOption('7')
    await page.getByRole('button', { name: 'Show' }).click()
    expect(page.url()).toBe(`${base}/app/sites/${site.id}/stats?days=7`)
    expect(await page.getByLabel('Period').inputValue()).toBe('7')
    expect(await page.getByRole('img', { name: 'Visitors and page views per day, last 7 days' }).count()).toBe(1)
    await check('statistics, 7 days', page)

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: /Download top pages as CSV/ }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/-pages-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/)
    expect(readFileSync((await download.path())!, 'utf8')).toBe('path,pageviews,visitors\r\n/,6,3\r\n/about,6,3\r\n')

    const refused = await page.goto(`${base}/app/sites/${site.id}/stats?days=365`)
    expect(refused?.status()).toBe(400)
    expect(await page.locator('#days-error').textContent()).toContain('Choose the last 7, 30 or 90 days.')
    await check('statistics, a period refused', page)

    await page.goto(`${base}/app/stats`)
    expect(await page.getByRole('region', { name: 'Your sites' }).textContent()).toContain('Hansen Bakery')
    await check('statistics of every site', page)

    expect(checked).toHaveLength(4)
    expect(findings).toEqual([])
    await context.close()
  })
})
