import { describe, expect, it } from 'vitest'
import { BUSINESS_TYPES } from '../../src/domain/sites/templates/catalogue.ts'
import type { Locale } from '../../src/domain/locales.ts'
import { onPostgres } from '../helpers/database.ts'
import { expectLighthouseAtLeast95, haveChrome } from '../helpers/lighthouse.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { buildSite } from './helpers.ts'
import { api } from './template-helpers.ts'

// Each template's first draft, published with its own preset (eight presets, eight font pairs
// and corner styles among them) and its illustration, scores at least 95 in Lighthouse's four
// categories with its fonts loaded from the site. Its host is a subdomain of localhost, which
// browsers treat as a secure origin, as a published site on https is.
describe.skipIf(!haveChrome || onPostgres)('Lighthouse on each template’s published draft', { timeout: 600_000 }, async () => {
  const t = await startLiveApp({ env: { SITES_DOMAIN: 'sites.localhost' } })
  const port = new URL(t.base).port
  const call = api(t.base, await makeAccount(t.app, 'max'))
  const LANGUAGES: readonly Locale[] = ['de', 'en', 'fr']

  it.each(BUSINESS_TYPES.map((type, i) => [type, LANGUAGES[i % LANGUAGES.length]!] as const))(
    'scores at least 95 for the %s template (%s)',
    async (type, lang) => {
      const created = await call('POST', '/v1/sites', {
        name: `Lighthouse ${type}`,
        default_locale: lang,
        template: type,
        business: {
          type,
          city: 'Lyon',
          phone: '+33 4 78 00 00 00',
          opening_hours: { items: [{ day: 'friday', opens: '09:00', closes: '17:00' }] },
        },
      })
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      expect((await buildSite(t.app, created.json['id'])).status).toBe('succeeded')
      const host = new URL(`https://${created.json['subdomain']}`).hostname
      await expectLighthouseAtLeast95(`http://${host}:${port}/`)
    },
  )
})
