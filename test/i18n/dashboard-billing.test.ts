import { describe, expect, it } from 'vitest'
import { createStripe } from '../../src/domain/billing/stripe-client.ts'
import { syncCatalogue } from '../../src/domain/billing/catalogue.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startFakeStripe } from '../helpers/fake-stripe.ts'
import { makeTeam } from '../teams/helpers.ts'
import { inEveryLanguage } from './dashboard-helpers.ts'

const SECRET_KEY = 'sk_test_fake_i18n'
const fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: 'whsec_i18n' })
await syncCatalogue(createStripe({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: fake.url })!)

describe('the billing page in German and French', () => {
  it('shows the plan, the plans to choose with prices and add-ons, and the invoices without an English sentence', async () => {
    const { app } = await buildTestApp({
      env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: 'whsec_i18n', STRIPE_API_BASE: fake.url },
    })
    const team = await makeTeam(app, 'free')
    const { de, fr } = await inEveryLanguage(app, team.owner.cookie, '/app/billing')
    expect(de.$('h1').text()).toBe('Abrechnung')
    expect(de.$('#choose-h').text()).toBe('Tarif wählen')
    expect(de.main).toMatch(/\d+ € im Monat/)
    expect(fr.$('#choose-h').text()).toBe('Choisir une offre')
    expect(fr.main).toContain('par mois')
    const viewer = await inEveryLanguage(app, team.viewer.cookie, '/app/billing')
    expect(viewer.de.$('.view-only').text()).toBe('Nur ein Inhaber dieses Kontos verwaltet Tarif und Zahlungen.')
  })

  it('lists the plans to ask the operator for when paying online is not set up', async () => {
    const { app } = await buildTestApp({ env: { SUPPORT_EMAIL: 'hilfe@presence.test' } })
    const team = await makeTeam(app, 'free')
    const { de } = await inEveryLanguage(app, team.owner.cookie, '/app/billing')
    expect(de.main).toContain('Online-Zahlung ist für diesen Dienst nicht eingerichtet.')
    expect(de.$('table th').first().text()).toBe('Tarif')
  })
})
