import { describe, expect, it } from 'vitest'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { signedIn } from '../dashboard/helpers.ts'
import { inEveryLanguage } from './dashboard-helpers.ts'

describe('the overview and the sites in German and French', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'sites-i18n@example.com')
  await createAccountSite(app.db, owner.user.accountId, { name: 'Bäckerei' })

  it('shows the overview with the plan, its allowances and the usage in the page’s language', async () => {
    const { en, de, fr } = await inEveryLanguage(app, owner.cookie, '/app')
    expect(en.$('h1').text()).toBe('Overview')
    expect(de.$('h1').text()).toBe('Übersicht')
    expect(fr.$('h1').text()).toBe('Vue d’ensemble')
    expect(de.main).toContain('Ihr Tarif ist')
    expect(de.main).toMatch(/Sie haben 1 der \d+ Websites?, die Tarif/)
    expect(fr.main).toContain('Votre offre est')
    expect(fr.main).toContain('Domaines propres :')
  })

  it('lists the sites with translated columns, status and dates', async () => {
    const { de, fr } = await inEveryLanguage(app, owner.cookie, '/app/sites')
    expect(de.$('h1').text()).toBe('Websites')
    expect(
      de
        .$('th')
        .map((_i, th) => de.$(th).text())
        .get(),
    ).toEqual(['Name', 'Adresse', 'Domain', 'Status', 'Veröffentlicht', 'Vorschau'])
    expect(de.main).toContain('noch nicht veröffentlicht')
    expect(fr.main).toContain('pas encore publié')
    expect(fr.$('a.button').text()).toBe('Créer un site')
  })
})
