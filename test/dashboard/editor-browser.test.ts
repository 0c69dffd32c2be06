import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { readOutbox } from '../../src/infra/mailer.ts'
import { onPostgres } from '../helpers/database.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { DESKTOP, haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { startLiveApp } from '../identity/helpers.ts'

// A person builds and publishes a site in Chromium with JavaScript off: from the front page's
// "Start free" through every block type to the page served on the site's own subdomain
// ({slug}.localhost, which the browser resolves to this loopback server), an edit published
// again, and a roll back. axe-core checks every editor page as it was shown, refusals included.
describe.skipIf(!haveBrowser || onPostgres)('the editor in Chromium without JavaScript', { timeout: 120_000 }, async () => {
  const { app, base } = await startLiveApp()
  const port = new URL(base).port
  const browser = await launchBrowser()
  const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false })
  const page = await context.newPage()
  // The pictures the site links to, served here: the test runs offline.
  const picture = `<svg xmlns="http://www.w3.org/2000/svg" width="960" height="360" viewBox="0 0 960 360"><rect width="960" height="360" fill="#bfdbfe"/><circle cx="780" cy="90" r="48" fill="#fbbf24"/><rect y="250" width="960" height="110" fill="#1e3a8a"/><rect x="160" y="150" width="260" height="110" fill="#b45309"/><polygon points="150,150 290,80 430,150" fill="#7c2d12"/><rect x="260" y="200" width="50" height="60" fill="#fde68a"/></svg>`
  await context.route('https://images.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: picture }))
  const { check, findings, checked } = await accessibilityChecker(browser, base)
  /** axe-core on the page as shown, and the page at phone width: nothing wider than the screen. */
  const accessible = (label: string, target: Page = page) => check(label, target)

  const notice = () => page.locator('.notice').textContent()
  const problems = () => page.locator('.problems').textContent()
  let siteUrl = ''
  let subdomain = ''

  it('starts free from the front page: signs in with the mailed code and names the first site', async () => {
    await page.goto(`${base}/`)
    await page.getByRole('link', { name: 'Start free' }).first().click()
    await page.locator('#email').fill('harbour@example.com')
    await page.getByRole('button', { name: /code/i }).click()
    await page.waitForURL(/\/signin\/code/)
    const [mail] = await readOutbox(app.db, app.keyring, 'harbour@example.com')
    await page.locator('#code').fill(/(\d{6})/.exec(mail!.text)![1]!)
    await page.locator('#code').press('Enter')
    await page.waitForURL(`${base}/app/start`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Tell us about your business')
    await accessible('start')

    // Refused first: no name. The error sits next to the field, and the summary links to it.
    await page.getByRole('button', { name: 'Create my site' }).click()
    expect(await problems()).toContain('Fill this in.')
    await expect.poll(() => page.getByLabel('Name of your site').getAttribute('aria-invalid')).toBe('true')
    await accessible('start refused')
    await page.getByLabel('Name of your site').fill('Harbour Bakery')
    await page.getByRole('button', { name: 'Create my site' }).click()
    expect(await notice()).toContain('Your site was created.')
    siteUrl = page.url().replace(/\?.*$/, '')
    subdomain = `http://harbour-bakery.localhost:${port}/`
    expect(await page.locator('main').textContent()).toContain('harbour-bakery.localhost')
    await accessible('site')
  })

  it('adds the home page and a block of every type, list items added without script', async () => {
    await page.getByRole('link', { name: 'Add a page' }).click()
    expect(await page.getByLabel('Address of the page').inputValue()).toBe('/')
    await accessible('new page')
    await page.getByLabel('Title').fill('Fresh from the harbour')
    await page.getByLabel('Short description (optional)').fill('Bread and cakes baked every morning by the harbour.')
    await page.getByRole('button', { name: 'Add page' }).click()
    expect(await notice()).toContain('The page was added.')

    const add = async (label: string) => {
      await page.getByRole('link', { name: label, exact: true }).click()
      await accessible(`new ${label}`)
    }
    const save = async () => {
      await page.getByRole('button', { name: 'Save block' }).click()
      expect(await notice()).toContain('The block was added.')
    }
    await add('Big heading')
    await page.getByLabel('Heading', { exact: true }).fill('Bread from the harbour oven')
    await page.getByLabel('Line below the heading (optional)').fill('Baked every morning since 1987')
    await page.getByLabel('Button text').fill('Find us')
    await page.getByLabel('Button link').fill('#contact')
    await save()

    await add('Text')
    await page.getByLabel('Text', { exact: true }).fill('## Our bread\n\nSourdough, rye and **spelt**, baked before sunrise.')
    await page.getByRole('button', { name: 'Show how it will look' }).click()
    expect(await page.locator('.rendered strong').textContent()).toBe('spelt')
    await accessible('text preview')
    await save()

    await add('Picture')
    await page.getByLabel('Or a picture address').fill('https://images.example/harbour-bakery.jpg')
    await page.getByLabel('What the picture shows (optional)').fill('The bakery at the harbour')
    await save()

    await add('Features')
    const feature = (n: number) => page.getByRole('group', { name: `Feature ${n}` })
    await feature(1).getByLabel('Title').fill('Sourdough')
    await feature(1).getByLabel('Text').fill('Three days of rest for every loaf.')
    await page.getByRole('button', { name: 'Add another feature' }).click()
    await feature(2).getByLabel('Title').fill('Organic flour')
    await feature(2).getByLabel('Text').fill('From mills of the region.')
    await page.getByRole('button', { name: 'Add another feature' }).click()
    await feature(3).getByLabel('Title').fill('To be removed')
    await page.getByRole('button', { name: 'Remove feature 3' }).click()
    expect(await page.getByRole('group', { name: 'Feature 3' }).count()).toBe(0)
    expect(await feature(2).getByLabel('Title').inputValue()).toBe('Organic flour')
    await accessible('features with items')
    await save()

    await add('Questions and answers')
    await page.getByLabel('Question', { exact: true }).fill('Do you deliver?')
    await page.getByLabel('Answer').fill('Within the old town, every morning.')
    await save()

    // Wrong content: a link without its scheme is refused on the field, the input kept, nothing stored.
    await add('Call to action')
    await page.getByLabel('Heading', { exact: true }).fill('Order a birthday cake')
    await page.getByLabel('Button text').fill('Write to us')
    await page.getByLabel('Button link').fill('www.harbour-bakery.example')
    await page.getByRole('button', { name: 'Save block' }).click()
    expect(await problems()).toContain('Button link: Start the link with https://')
    expect(await page.getByLabel('Button link').inputValue()).toBe('www.harbour-bakery.example')
    expect(await page.getByLabel('Button link').getAttribute('aria-invalid')).toBe('true')
    expect(await app.db.selectFrom('blocks').select('id').where('type', '=', 'cta').execute()).toEqual([])
    await accessible('block refused')
    await page.getByLabel('Button link').fill('mailto:cakes@harbour-bakery.example')
    // Enter in a field saves the block (the form's first submit button is Save).
    await page.getByLabel('Button link').press('Enter')
    expect(await notice()).toContain('The block was added.')

    await add('Contact form')
    await page.getByLabel('Heading (optional)').fill('Write to us')
    await save()

    await add('Customer quote')
    await page.getByLabel('Quote').fill('The best rye bread on the coast.')
    await page.getByLabel('Who said it').fill('Jana')
    await save()

    expect(await page.locator('ol.blocks > li').count()).toBe(8)
    await accessible('page with blocks')
    await page.goto(page.url().replace(/[?#].*$/, ''))
    await page.screenshot({ path: screenshotPath('editor'), fullPage: false })
    await page.setViewportSize(PHONE)
    await page.screenshot({ path: screenshotPath('editor-phone'), fullPage: false })
    await page.setViewportSize(DESKTOP)
  })

  /** Publishes from the site's page and reloads until the build is done, as a person would. */
  async function publish(times: number) {
    await page.goto(siteUrl)
    await page.getByRole('button', { name: 'Publish now' }).click()
    expect(await notice()).toContain('A build was queued.')
    await expect
      .poll(
        async () =>
          (await page.goto(siteUrl), await app.db.selectFrom('builds').select('id').where('status', '=', 'succeeded').execute()).length,
        { timeout: 20_000 },
      )
      .toBe(times)
    await page.reload()
    expect(await page.locator('main').textContent()).toContain('Published (1 page)')
  }

  it('publishes: the page is served on the site’s subdomain', async () => {
    await publish(1)
    await accessible('site published')
    await page.getByRole('link', { name: 'harbour-bakery.localhost' }).click()
    expect(page.url()).toBe(subdomain)
    expect(await page.title()).toContain('Fresh from the harbour')
    expect(await page.locator('main').textContent()).toContain('Bread from the harbour oven')
    expect(await page.locator('main').textContent()).toContain('baked before sunrise')
    await page.screenshot({ path: screenshotPath('published-site'), fullPage: false })
  })

  it('edits the text, publishes again, serves the new text, and rolls back', async () => {
    await page.goto(siteUrl)
    await page.getByRole('link', { name: 'Fresh from the harbour' }).click()
    await page.getByRole('link', { name: 'Edit text block 2' }).click()
    await accessible('edit text')
    await page.getByLabel('Text', { exact: true }).fill('## Our bread\n\nNow with a **harbour rye** on Saturdays.')
    await page.getByRole('button', { name: 'Save block' }).click()
    expect(await notice()).toContain('The block was saved.')
    await publish(2)
    await page.goto(subdomain)
    await page.reload()
    expect(await page.locator('main').textContent()).toContain('Now with a harbour rye on Saturdays.')

    await page.goto(siteUrl)
    const [first] = await app.db.selectFrom('builds').select('id').orderBy('created_at').execute()
    await page.getByRole('button', { name: `Go back to ${first!.id}` }).click()
    expect(await notice()).toContain('The site now serves the chosen build.')
    // Hosted pages may be kept a minute; a reload asks the server again, as a person would.
    await page.goto(subdomain)
    await page.reload()
    expect(await page.locator('main').textContent()).toContain('baked before sunrise')
  })

  it('refuses a form from a second tab that is out of date, saying so and keeping both texts', async () => {
    await page.goto(siteUrl)
    await page.getByRole('link', { name: 'Fresh from the harbour' }).click()
    const editUrl = await page.getByRole('link', { name: 'Edit customer quote block 8' }).getAttribute('href')
    const other = await context.newPage()
    await other.goto(`${base}${editUrl}`)
    await page.goto(`${base}${editUrl}`)
    await other.getByLabel('Who said it').fill('Jana from next door')
    await other.getByRole('button', { name: 'Save block' }).click()
    expect(await other.locator('.notice').textContent()).toContain('The block was saved.')
    await page.getByLabel('Who said it').fill('Jana B.')
    await page.getByRole('button', { name: 'Save block' }).click()
    expect(await problems()).toContain('Someone changed this block in another tab or window')
    expect(await page.getByLabel('Who said it').inputValue()).toBe('Jana B.')
    expect(await page.locator('#f-author-saved').textContent()).toBe('Saved meanwhile: Jana from next door')
    await accessible('stale form')
    const saved = await app.db.selectFrom('blocks').select('content').where('type', '=', 'testimonial').executeTakeFirstOrThrow()
    expect(saved.content).toMatchObject({ author: 'Jana from next door' })
    await other.close()
  })

  it('refuses a second site on plan free with the way to more', async () => {
    await page.goto(`${base}/app/sites`)
    await accessible('sites')
    await page.getByRole('link', { name: 'Create a site' }).click()
    await page.getByLabel('Name of your site').fill('Harbour Café')
    await page.getByRole('button', { name: 'Create my site' }).click()
    expect(await problems()).toMatch(/plan Free, which allows 1 site/)
    expect(await page.getByRole('link', { name: 'compare the plans' }).getAttribute('href')).toBe('/#plans')
    expect(await page.getByLabel('Name of your site').inputValue()).toBe('Harbour Café')
    expect(await app.db.selectFrom('sites').select('id').where('name', '=', 'Harbour Café').execute()).toEqual([])
    await accessible('second site refused')
  })

  it('shows settings, domains and every other editor page without a serious accessibility finding', async () => {
    const [site] = await app.db.selectFrom('sites').select('id').where('name', '=', 'Harbour Bakery').execute()
    const [block] = await app.db.selectFrom('blocks').select('id').where('type', '=', 'faq').execute()
    const [pageRow] = await app.db.selectFrom('pages').select('id').execute()
    for (const [label, path] of [
      ['settings', `/app/sites/${site!.id}/settings`],
      ['domains', `/app/sites/${site!.id}/domains`],
      ['edit faq', `/app/blocks/${block!.id}`],
      ['delete block', `/app/blocks/${block!.id}/delete`],
      ['delete page', `/app/pages/${pageRow!.id}/delete`],
    ] as const) {
      await page.goto(`${base}${path}`)
      await accessible(label)
    }
    await page.goto(`${base}/app/sites/${site!.id}/domains`)
    await page.getByLabel('Add a domain').fill('www.harbour-bakery.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    expect(await problems()).toMatch(/own domains/)
    await accessible('domain refused')
    expect(checked.length).toBeGreaterThan(20)
    expect(findings).toEqual([])
  })
})
