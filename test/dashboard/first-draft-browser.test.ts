import { describe, expect, it } from 'vitest'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { until } from '../helpers/polling.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { hostGet } from '../sites/template-helpers.ts'
import { person, sessionCookie } from '../teams/helpers.ts'

// A baker in Lyon on her phone, her browser in French, JavaScript off: "Parlez-nous de votre
// activité" → a French draft with her name, town, phone and hours → another look chosen → the
// draft's preview → published → her subdomain serves it with the new colours and fonts.
describe.skipIf(!haveBrowser || onPostgres)('the first draft in Chromium on a phone without JavaScript', { timeout: 180_000 }, async () => {
  const { app, base } = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test' } })
  const browser = await launchBrowser()
  const axe = await accessibilityChecker(browser, base)
  const baker = await person(app, 'boulangere@example.fr')
  const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false, extraHTTPHeaders: { 'accept-language': 'fr' } })
  const [name, value] = (await sessionCookie(app, baker.id, baker.accountId)).split('=') as [string, string]
  await context.addCookies([{ name, value, url: base }])
  const page = await context.newPage()

  it('makes the draft, changes its look, previews it and publishes it', async () => {
    await page.goto(`${base}/app/start`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Parlez-nous de votre activité')
    await axe.check('first screen', page)
    await page.getByLabel('Nom de votre site').fill('Boulangerie Rivière')
    await page.getByRole('checkbox', { name: 'français' }).check()
    await page.getByRole('checkbox', { name: 'anglais (English)' }).uncheck()
    await page.getByLabel('Langue principale').selectOption('fr')
    await page.getByLabel('Type d’activité').selectOption('bakery')
    await page.getByLabel('Ville').fill('Lyon')
    await page.getByLabel('Téléphone').fill('+33 4 78 12 34 56')
    await page.getByLabel('Mardi : ouverture').fill('07:00')
    await page.getByLabel('Mardi : fermeture').fill('19:30')
    await page.screenshot({ path: screenshotPath('first-draft-phone'), fullPage: true })
    await page.getByRole('button', { name: 'Créer mon site' }).click()
    expect(page.url()).toMatch(/\/app\/sites\/site_[\w-]+\?done=site-created$/)
    const siteId = /\/app\/sites\/(site_[\w-]+)/.exec(page.url())![1]!
    const main = await page.locator('main').textContent()
    for (const title of ['À propos', 'Carte', 'Contact', 'Mentions légales']) expect(main).toContain(title)
    await axe.check('the draft’s site', page)

    // Another look: the bistro preset, saved.
    await page.goto(`${base}/app/sites/${siteId}/theme`)
    await page.getByLabel('Style', { exact: true }).selectOption('bistro')
    await page.getByRole('button', { name: 'Enregistrer l’apparence' }).click()
    await page.waitForURL(/done=/)

    // The draft's preview, before anything is published, with the facts typed on the first screen.
    await page.goto(`${base}/app/sites/${siteId}`)
    await page.getByRole('link', { name: /Aperçu du brouillon/ }).click()
    const preview = await page.content()
    expect(preview).toContain('Lyon')
    expect(preview).toContain('+33 4 78 12 34 56')
    expect(new URL(page.url()).pathname).toBe(`/s/${siteId}/_draft/`)

    await page.goto(`${base}/app/sites/${siteId}`)
    await page.getByRole('button', { name: 'Publier maintenant' }).click()
    const published = await until(async () => {
      const row = await app.db.selectFrom('builds').select('status').where('site_id', '=', siteId).executeTakeFirst()
      return row?.status === 'succeeded' ? row : undefined
    }, 30_000)
    expect(published.status).toBe('succeeded')
    const { slug } = await app.db.selectFrom('sites').select('slug').where('id', '=', siteId).executeTakeFirstOrThrow()
    const home = await hostGet(base, `${slug}.sites.test`, '/')
    expect(home.status).toBe(200)
    expect(home.body).toContain('<html lang="fr"')
    expect(home.body).toContain('Boulangerie Rivière')
    expect(home.body).toContain('"openingHoursSpecification"')
    // The bistro's look: its fonts preloaded from the site itself and its colours in the stylesheet.
    const theme = await app.db.selectFrom('sites').select('settings').where('id', '=', siteId).executeTakeFirstOrThrow()
    expect(JSON.stringify(theme.settings)).toContain('"preset":"bistro"')
    expect(home.body).toMatch(/<link rel="preload" href="[^"]*fonts\/lora-latin-700[^"]*\.woff2" as="font"/)
    expect(home.body.toLowerCase()).toContain('#9b1c2e')
    expect(axe.findings).toEqual([])
  })
})
