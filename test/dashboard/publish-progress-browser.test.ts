import { describe, expect, it } from 'vitest'
import { newId } from '../../src/infra/crypto.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { DESKTOP, haveBrowser, launchBrowser } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { person, sessionCookie } from '../teams/helpers.ts'

// A publish followed on the site's page where scripts run: the status changes in its live region
// as the build goes, without the page being loaded again; the "check again" link the page offers
// without scripts comes back once the build is done.
describe.skipIf(!haveBrowser || onPostgres)('a publish’s progress in Chromium', { timeout: 60_000 }, async () => {
  const { app, base } = await startLiveApp()
  const browser = await launchBrowser()
  const owner = await person(app, 'progress@example.com')
  const site = await createAccountSite(app.db, owner.accountId, { name: 'Kiosk' })
  await createPage(app.db, site, { path: '/', title: 'Kiosk am Markt' })
  const context = await browser.newContext({ viewport: DESKTOP })
  const [name, value] = (await sessionCookie(app, owner.id, owner.accountId)).split('=') as [string, string]
  await context.addCookies([{ name, value, url: base }])
  const page = await context.newPage()

  it('shows the build queued, then done, in place', async () => {
    // A build held in the queue (no job runs it) that the test then finishes, as the build job would.
    const id = newId('bld')
    await app.db.insertInto('builds').values({ id, site_id: site.id }).execute()
    await page.goto(`${base}/app/sites/${site.id}`)
    const status = page.locator('#build-status')
    expect(await status.textContent()).toBe('Waiting to publish…')
    await page.evaluate('window.stayed = true')
    await expect.poll(() => page.locator('#check-again').isHidden()).toBe(true)
    await app.db.updateTable('builds').set({ status: 'running', started_at: new Date() }).where('id', '=', id).execute()
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Publishing…')
    await app.db.updateTable('builds').set({ status: 'succeeded', pages: 1, finished_at: new Date() }).where('id', '=', id).execute()
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Published (1 page)')
    expect(await page.evaluate('window.stayed')).toBe(true)
    const again = page.locator('#check-again')
    expect(await again.isVisible()).toBe(true)
    expect(await again.textContent()).toBe('Show the updated list')
  })

  it('answers the status to its own account only', async () => {
    const stranger = await person(app, 'stranger@example.com')
    const res = await fetch(`${base}/app/sites/${site.id}/build-status`, {
      headers: { cookie: await sessionCookie(app, stranger.id, stranger.accountId), accept: 'application/json' },
    })
    expect(res.status).toBe(404)
    // Without a session it sends the person to sign in; a malformed id is refused, never a 500.
    const anonymous = await fetch(`${base}/app/sites/${site.id}/build-status`, { redirect: 'manual' })
    expect(anonymous.status).toBe(303)
    expect(anonymous.headers.get('location')).toMatch(/^\/signin\?return_to=/)
    const malformed = await fetch(`${base}/app/sites/not-a-site-id/build-status`, {
      headers: { cookie: await sessionCookie(app, owner.id, owner.accountId) },
    })
    expect(malformed.status).toBe(400)
  })
})
