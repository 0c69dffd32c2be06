import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { insertActiveDomain } from '../../src/domain/sites/domains.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

// Regression: an own domain typed as bäckerei.de was listed as xn--bckerei-5wa.de. People read it
// as they wrote it; links and form values keep the stored ASCII form.
describe('own domains with letters beyond ASCII', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'baeckerei@example.com')
  await updateAccount(app.db, owner.user.accountId, { plan: 'plus' })
  const site = await createAccountSite(app.db, owner.user.accountId, { name: 'Bäckerei Hansen' })
  await insertActiveDomain(app.db, site.id, 'xn--bckerei-5wa.de')
  const { cookie, form, page } = await dashboardBrowser(app, owner, `/app/sites/${site.id}/domains`)
  const text = (body: string) => body.replace(/<[^>]+>/g, ' ')

  it('are named in their Unicode form wherever the dashboard lists or names them', async () => {
    const added = await post(app, `/app/sites/${site.id}/domains`, cookie, form({ hostname: 'www.bäckerei.de' }))
    expect(added.statusCode, added.body).toBe(303)
    const domains = await page(`/app/sites/${site.id}/domains`)
    expect(domains).toContain('<td data-label="Hostname">bäckerei.de (primary)</td>')
    expect(domains).toContain('<td data-label="Hostname">www.bäckerei.de</td>')
    expect(domains).toContain('Verify www.bäckerei.de')
    expect(domains).toContain('Remove www.bäckerei.de')
    // Only the TXT record's name (typed into the DNS) keeps the ASCII form.
    expect(text(domains).replace(/Name:\s+\S+/g, '')).not.toContain('xn--')

    const again = await post(app, `/app/sites/${site.id}/domains`, cookie, form({ hostname: 'WWW.Bäckerei.de' }))
    expect(again.statusCode).toBe(409)
    expect(again.body).toContain('www.bäckerei.de is already a domain of this site')
    expect(again.body).toContain('value="WWW.Bäckerei.de"')

    const home = await page(`/app/sites/${site.id}`)
    expect(home).toContain('<a href="https://xn--bckerei-5wa.de/">bäckerei.de</a>')
    const list = await page('/app/sites')
    expect(list).toContain('<td data-label="Domain">bäckerei.de</td>')

    const id = (await app.db.selectFrom('domains').select('id').where('hostname', '=', 'www.xn--bckerei-5wa.de').executeTakeFirstOrThrow())
      .id
    const confirm = await page(`/app/domains/${id}/delete`)
    expect(confirm).toContain('Remove www.bäckerei.de?')
    expect(confirm).toContain('Your site stops answering at www.bäckerei.de.')
    expect(text(confirm)).not.toContain('xn--')
  })
})
