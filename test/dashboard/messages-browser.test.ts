import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { afterAuditFlush } from '../rest/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'

// The Messages page in Chromium at phone width with JavaScript off: an editor marks a lead
// answered with its small form, filters by status, and the change is in the audit log; a viewer
// sees the status without a form. axe-core finds nothing serious.
describe.skipIf(!haveBrowser || onPostgres)('lead status on the Messages page without JavaScript', { timeout: 240_000 }, async () => {
  const { app, base } = await startLiveApp()
  const browser = await launchBrowser()
  const { check, findings, checked } = await accessibilityChecker(browser, base)

  it('sets a status with the form beside the lead and filters by it', async () => {
    const team = await makeTeam(app, 'lite')
    const site = await createSite(app.db, { name: 'Harbour Café', accountId: team.accountId })
    const consent = { version: CONSENT_VERSION, digest: 'b'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
    const add = (email: string, note: string) =>
      insertLead(app.db, app.keyring, { siteId: site.id, sessionId: null, email, name: 'Visitor', note, consent, source: 'contact_form' })
    const first = (await add('first@example.org', 'A table for four on Friday?'))!
    await add('second@example.org', 'Do you have oat milk?')

    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
    const [name, value] = team.editor.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: base }])
    const page = await context.newPage()
    await page.goto(`${base}/app/leads`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Leads')
    const status = page.getByLabel('Status of the lead from first@example.org')
    expect(await status.inputValue()).toBe('new')
    await check('messages, two new leads', page)

    await status.selectOption('answered')
    await page.locator(`form[action="/app/leads/${first}/status"]`).getByRole('button', { name: 'Save' }).click()
    expect(page.url()).toBe(`${base}/app/leads?done=status-saved`)
    expect(await page.getByRole('status').first().textContent()).toContain('The status was saved.')
    expect(await page.getByLabel('Status of the lead from first@example.org').inputValue()).toBe('answered')
    await page.screenshot({ path: screenshotPath('messages-status-phone'), fullPage: true })
    await check('messages, a status saved', page)

    // The filter keeps itself after a change made in the filtered list.
    await page.getByLabel('Status', { exact: true }).selectOption('new')
    await page.getByRole('button', { name: 'Filter' }).click()
    expect(page.url()).toBe(`${base}/app/leads?site_id=&status=new`)
    const table = page.getByRole('region', { name: 'Leads' })
    expect(await table.textContent()).toContain('second@example.org')
    expect(await table.textContent()).not.toContain('first@example.org')
    await page.getByLabel('Status of the lead from second@example.org').selectOption('archived')
    await page.getByRole('button', { name: 'Save' }).click()
    expect(page.url()).toBe(`${base}/app/leads?status=new&done=status-saved`)
    expect(await page.locator('main').textContent()).toContain('No leads with this status.')
    await check('messages, filtered to nothing', page)

    // The CSV export follows the filter and carries the status.
    const csv = await (await fetch(`${base}/app/leads.csv?status=archived`, { headers: { cookie: team.editor.cookie } })).text()
    const [head, ...lines] = csv.trim().split('\r\n')
    expect(head).toContain(',source,status,email,')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(',contact_form,archived,second@example.org,')

    const rows = await app.db.selectFrom('leads').select(['id', 'status']).where('site_id', '=', site.id).orderBy('created_at').execute()
    expect(rows.map((row) => row.status)).toEqual(['answered', 'archived'])
    await afterAuditFlush()
    const audit = await app.db
      .selectFrom('audit_log')
      .select(['status', 'user_id'])
      .where('account_id', '=', team.accountId)
      .where('operation', '=', 'dashboard.leads.status')
      .execute()
    expect(audit).toEqual([
      { status: 303, user_id: team.editor.userId },
      { status: 303, user_id: team.editor.userId },
    ])
    await context.close()

    // A viewer reads the status; the form is not there for them.
    const viewerContext = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
    const [vName, vValue] = team.viewer.cookie.split('=') as [string, string]
    await viewerContext.addCookies([{ name: vName, value: vValue, url: base }])
    const viewerPage = await viewerContext.newPage()
    await viewerPage.goto(`${base}/app/leads`)
    expect(await viewerPage.locator(`form[action="/app/leads/${first}/status"]`).count()).toBe(0)
    expect(await viewerPage.getByRole('region', { name: 'Leads' }).textContent()).toContain('Answered')
    await viewerContext.close()

    expect(checked).toHaveLength(3)
    expect(findings).toEqual([])
  })
})

describe.skipIf(!haveBrowser || onPostgres)('notification settings without JavaScript', { timeout: 240_000 }, async () => {
  const { app, base } = await startLiveApp()
  const browser = await launchBrowser()
  const { check, findings, checked } = await accessibilityChecker(browser, base)

  it('reaches the settings from the Messages page, keeps each choice per kind, and in the person’s language', async () => {
    const team = await makeTeam(app, 'lite')
    await app.db.updateTable('users').set({ language: 'de' }).where('id', '=', team.owner.userId).execute()
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
    const [name, value] = team.owner.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: base }])
    const page = await context.newPage()
    await page.goto(`${base}/app/leads`)
    await page.getByRole('link', { name: 'Festlegen, wie Sie von neuen Nachrichten erfahren' }).click()
    expect(page.url()).toBe(`${base}/app/notifications`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Benachrichtigungen')
    const contact = page.getByRole('group', { name: 'Nachrichten über das Kontaktformular' })
    expect(await contact.getByLabel('Sofort eine E-Mail für jede').isChecked()).toBe(true)
    await check('notifications, defaults', page)

    await contact.getByLabel('Eine Übersicht am Tag').check()
    await page.getByRole('group', { name: 'Bitten, mit einem Menschen zu sprechen' }).getByLabel('Keine E-Mail').check()
    await page.getByRole('button', { name: 'Speichern' }).click()
    expect(page.url()).toBe(`${base}/app/notifications?done=saved`)
    expect(await page.getByRole('status').textContent()).toBe('Ihre Auswahl wurde gespeichert.')
    expect(await contact.getByLabel('Eine Übersicht am Tag').isChecked()).toBe(true)
    expect(
      await page.getByRole('group', { name: 'Anfragen über den Assistenten' }).getByLabel('Sofort eine E-Mail für jede').isChecked(),
    ).toBe(true)
    await page.screenshot({ path: screenshotPath('notifications-phone'), fullPage: true })
    await check('notifications, saved', page)
    const rows = await app.db
      .selectFrom('notification_settings')
      .select(['kind', 'delivery'])
      .where('user_id', '=', team.owner.userId)
      .orderBy('kind')
      .execute()
    expect(rows).toEqual([
      { kind: 'assistant_lead', delivery: 'instant' },
      { kind: 'contact_form', delivery: 'digest' },
      { kind: 'handoff', delivery: 'none' },
    ])
    await context.close()

    // A viewer gets no such mail and is told so, without a form.
    const viewerContext = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
    const [vName, vValue] = team.viewer.cookie.split('=') as [string, string]
    await viewerContext.addCookies([{ name: vName, value: vValue, url: base }])
    const viewerPage = await viewerContext.newPage()
    await viewerPage.goto(`${base}/app/notifications`)
    expect(await viewerPage.locator('form[action="/app/notifications"]').count()).toBe(0)
    expect(await viewerPage.locator('main').textContent()).toContain('you get none')
    await check('notifications, a viewer', viewerPage)
    await viewerContext.close()

    expect(checked).toHaveLength(3)
    expect(findings).toEqual([])
  })
})
