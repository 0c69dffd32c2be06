import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { addDays } from '../../src/domain/stats/report.ts'
import { dayOf } from '../../src/domain/stats/tally.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, memberBrowser, type Team } from '../teams/helpers.ts'

// The dashboard's Statistics page (DESIGN.md 18) over real HTTP without script: the last 7, 30 or
// 90 days from the daily roll-ups, a chart drawn on the server with the same figures as a table,
// the lists, each as CSV; a period the page does not offer is refused beside its field, and
// another account's site is not found.
const { app, base } = await startLiveApp()

const today = dayOf(Date.now())
const ago = (n: number) => addDays(today, -n)

let team: Team
let stranger: Team
let siteId: string

beforeAll(async () => {
  team = await makeTeam(app, 'pro')
  stranger = await makeTeam(app, 'pro')
  siteId = (await createAccountSite(app.db, team.accountId, { name: 'Harbour Bakery' })).id
  // What counting would have added up: today, five days ago, twenty days ago and sixty days ago.
  await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions) values
    (${siteId}, ${today}::date, 10, 4, 1), (${siteId}, ${ago(5)}::date, 6, 3, 0),
    (${siteId}, ${ago(20)}::date, 20, 8, 1), (${siteId}, ${ago(60)}::date, 100, 40, 2)`.execute(app.db)
  const items: Array<[string, string, string, number, number]> = [
    [today, 'page', '/', 6, 4],
    [today, 'page', '/menu', 4, 2],
    [ago(5), 'page', '/menu', 6, 3],
    [ago(20), 'page', '/about', 20, 8],
    [today, 'referrer', 'duckduckgo.com', 2, 2],
    [ago(5), 'referrer', 'google.com', 3, 3],
    [today, 'device', 'mobile', 7, 3],
    [today, 'device', 'desktop', 3, 1],
    [ago(5), 'device', 'desktop', 6, 3],
    [today, 'browser', 'Firefox', 10, 4],
    [ago(5), 'browser', 'Safari', 6, 3],
    [today, 'utm_campaign', '=HYPERLINK("http://evil.example")', 2, 1],
    [ago(60), 'page', '/old', 100, 40],
  ]
  for (const [day, kind, value, pageviews, visitors] of items)
    await sql`insert into stats_items (site_id, day, kind, value, pageviews, visitors)
      values (${siteId}, ${day}::date, ${kind}, ${value}, ${pageviews}, ${visitors})`.execute(app.db)
})

const cells = ($: ReturnType<typeof import('cheerio').load>, region: string) =>
  $(`[role="region"][aria-label="${region}"] tbody tr`)
    .toArray()
    .map((tr) =>
      $(tr)
        .find('td')
        .toArray()
        .map((td) => $(td).text()),
    )

describe('/app/sites/{id}/stats', () => {
  it('shows the last 30 days by default: totals, conversion rate, a chart with its table, the lists', async () => {
    const { status, $ } = await memberBrowser(base, team.owner).get(`/app/sites/${siteId}/stats`)
    expect(status).toBe(200)
    expect($('h1').text()).toBe('Statistics of Harbour Bakery')
    expect($('#days option[selected]').attr('value')).toBe('30')
    const figures = Object.fromEntries(
      $('.figures > div')
        .toArray()
        .map((div) => [$(div).find('dt').text(), $(div).find('dd').text()]),
    )
    expect(figures).toEqual({ Visitors: '15', 'Page views': '36', 'Messages and leads': '2', 'Conversion rate': '13.3%' })
    // The chart: one pale bar per day with page views, a dark one per day with visitors, and words for it.
    const svg = $('svg[role="img"]')
    expect(svg.attr('aria-labelledby')).toBe('visits-title visits-desc')
    expect($('#visits-title').text()).toBe('Visitors and page views per day, last 30 days')
    expect($('#visits-desc').text()).toContain('15 visitors and 36 page views in all; the busiest day was')
    expect(svg.find('rect')).toHaveLength(6)
    // The same days as a table, newest first, zeros included.
    const days = cells($, 'Every day: visitors, page views, messages')
    // Days as the page's language writes a date.
    const shown = (day: string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(day))
    expect(days).toHaveLength(30)
    expect(days[0]).toEqual([shown(today), '4', '10', '1'])
    expect(days[5]).toEqual([shown(ago(5)), '3', '6', '0'])
    expect(days[1]).toEqual([shown(ago(1)), '0', '0', '0'])
    expect(cells($, 'Pages by views')).toEqual([
      ['/about', '20', '8'],
      ['/menu', '10', '5'],
      ['/', '6', '4'],
    ])
    expect(cells($, 'Referrers by visitors')).toEqual([
      ['google.com', '3'],
      ['duckduckgo.com', '2'],
    ])
    expect(cells($, 'Devices by visitors')).toEqual([
      ['Computer', '4', '57%'],
      ['Phone', '3', '43%'],
    ])
    expect(cells($, 'Campaign links by visitors')).toEqual([['Campaign', '=HYPERLINK("http://evil.example")', '1', '2']])
    expect($('a[href$="&table=pages"]').attr('href')).toBe(`/app/sites/${siteId}/stats.csv?days=30&table=pages`)
    // Drawn on the server: no script on the page.
    expect($('script').length).toBe(0)
    // The site's screen leads here.
    const site = await memberBrowser(base, team.owner).get(`/app/sites/${siteId}`)
    expect(site.$(`a[href="/app/sites/${siteId}/stats"]`).text()).toBe('Statistics')
  })

  it('shows the last 7 or 90 days when chosen, to every member, the viewer included', async () => {
    const week = await memberBrowser(base, team.viewer).get(`/app/sites/${siteId}/stats?days=7`)
    expect(week.status).toBe(200)
    expect(cells(week.$, 'Every day: visitors, page views, messages')).toHaveLength(7)
    expect(week.$('.figures dd').first().text()).toBe('7')
    expect(week.$('#days option[selected]').attr('value')).toBe('7')
    const quarter = await memberBrowser(base, team.editor).get(`/app/sites/${siteId}/stats?days=90`)
    expect(quarter.status).toBe(200)
    expect(cells(quarter.$, 'Every day: visitors, page views, messages')).toHaveLength(90)
    expect(quarter.$('.figures dd').first().text()).toBe('55')
    expect(cells(quarter.$, 'Pages by views')[0]).toEqual(['/old', '100', '40'])
    // pro keeps 25 months: no word about retention.
    expect(quarter.$('main').text()).not.toContain('Your plan keeps statistics')
  })

  it('says what a plan keeps when the span reaches further back', async () => {
    const free = await makeTeam(app, 'free')
    const site = await createAccountSite(app.db, free.accountId, { name: 'Free Shop' })
    const { status, $ } = await memberBrowser(base, free.owner).get(`/app/sites/${site.id}/stats?days=90`)
    expect(status).toBe(200)
    expect($('[role="note"]').text()).toContain(`Your plan keeps statistics for 30 days: days before ${ago(29)} show nothing.`)
    expect($('#visits-desc').text()).toBe('No visits were counted on these days.')
    expect($('main').text()).toContain('No page was viewed on these days.')
  })

  it('refuses a period it does not offer beside the field, with a 400', async () => {
    for (const days of ['45', 'abc', '-7', '0']) {
      const { status, $ } = await memberBrowser(base, team.owner).get(`/app/sites/${siteId}/stats?days=${days}`)
      expect(status, days).toBe(400)
      expect($('#days-error').text()).toBe('Error: Choose the last 7, 30 or 90 days.')
      expect($('#days').attr('aria-invalid')).toBe('true')
      expect($('.figures').length).toBe(0)
    }
    const overall = await memberBrowser(base, team.owner).get('/app/stats?days=365')
    expect(overall.status).toBe(400)
    expect(overall.$('.error').text()).toContain('Choose the last 7, 30 or 90 days.')
  })

  it("answers 404 for another account's site, and a malformed id is refused", async () => {
    const other = memberBrowser(base, stranger.owner)
    expect((await other.get(`/app/sites/${siteId}/stats`)).status).toBe(404)
    expect((await other.get(`/app/sites/${siteId}/stats.csv`)).status).toBe(404)
    expect((await other.get('/app/sites/site_nope/stats?days=7')).status).toBe(404)
    expect((await other.get('/app/sites/not-a-site/stats')).status).toBe(400)
    const signedOut = await fetch(`${base}/app/sites/${siteId}/stats`, { redirect: 'manual' })
    expect(signedOut.status).toBe(303)
    expect(signedOut.headers.get('location')).toMatch(/^\/signin\?return_to=/)
  })
})

describe('/app/sites/{id}/stats.csv', () => {
  const csv = (query: string, member = team.owner) =>
    fetch(`${base}/app/sites/${siteId}/stats.csv${query}`, { headers: { cookie: member.cookie } })

  it('downloads each list of the chosen period, formulas defused', async () => {
    const days = await csv('?days=7&table=days')
    expect(days.status).toBe(200)
    expect(days.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(days.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="harbour-bakery-days-${ago(6)}-${today}\\.csv"$`),
    )
    const lines = (await days.text()).split('\r\n')
    expect(lines[0]).toBe('date,visitors,pageviews,conversions')
    expect(lines).toHaveLength(7 + 2)
    expect(lines[1]).toBe(`${ago(6)},0,0,0`)
    expect(lines[7]).toBe(`${today},4,10,1`)
    expect(await (await csv('?days=30&table=pages', team.viewer)).text()).toBe(
      'path,pageviews,visitors\r\n/about,20,8\r\n/menu,10,5\r\n/,6,4\r\n',
    )
    expect(await (await csv('?days=30&table=campaigns')).text()).toBe(
      `kind,value,visitors,pageviews\r\nutm_campaign,"'=HYPERLINK(""http://evil.example"")",1,2\r\n`,
    )
    expect(await (await csv('?table=referrers')).text()).toBe('host,visitors\r\ngoogle.com,3\r\nduckduckgo.com,2\r\n')
    expect(await (await csv('?table=devices')).text()).toBe('device,visitors\r\ndesktop,4\r\nmobile,3\r\n')
    expect(await (await csv('?table=browsers')).text()).toBe('browser,visitors\r\nFirefox,4\r\nSafari,3\r\n')
  })

  it('refuses a period or a list it does not know', async () => {
    for (const query of ['?days=14', '?days=30&table=addresses', '?days=30&format=xlsx']) {
      const res = await csv(query)
      expect(res.status, query).toBe(400)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    }
  })
})

describe('/app/stats', () => {
  it("lists the account's sites with their figures, each leading to its page", async () => {
    const second = await createAccountSite(app.db, team.accountId, { name: 'Harbour Café' })
    const { status, $ } = await memberBrowser(base, team.viewer).get('/app/stats?days=7')
    expect(status).toBe(200)
    expect(cells($, 'Your sites')).toEqual([
      ['Harbour Bakery', '7', '16', '1'],
      ['Harbour Café', '0', '0', '0'],
    ])
    expect($(`a[href="/app/sites/${second.id}/stats?days=7"]`).text()).toBe('Harbour Café')
    const theirs = await memberBrowser(base, stranger.owner).get('/app/stats')
    expect(theirs.$('main').text()).not.toContain('Harbour Bakery')
  })
})
