import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION, consentDigest, leadConsentFor } from '../../src/domain/leads/consent.ts'
import { insertLead, listLeads } from '../../src/domain/leads/leads.ts'
import {
  createSite,
  findSiteByHostname,
  findSiteById,
  PLATFORM_SITE_ID,
  seedPlatformSite,
  updateSiteSettings,
} from '../../src/domain/sites/sites.ts'
import { DEFAULT_CONSENT, resolveAssistant } from '../../src/domain/sites/settings.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://www.platform.test' } })

describe('sites', () => {
  it('seeds the platform site at start from BASE_URL, idempotently', async () => {
    const site = await findSiteById(app.db, PLATFORM_SITE_ID)
    expect(site).toMatchObject({ status: 'live', default_locale: 'en', locales: ['en'], account_id: null })
    expect((await findSiteByHostname(app.db, 'www.platform.test'))?.id).toBe(PLATFORM_SITE_ID)
    expect(resolveAssistant(site!.settings)).toEqual({
      enabled: true,
      persona: 'Ava',
      capabilities: { booking: true, booking_url: 'https://www.platform.test/demo', lead: true, handoff: true },
    })
    await Promise.all([seedPlatformSite(app.db, 'https://www.platform.test'), seedPlatformSite(app.db, 'https://www.platform.test')])
    expect(await app.db.selectFrom('sites').select('id').where('id', '=', PLATFORM_SITE_ID).execute()).toHaveLength(1)
    expect(await app.db.selectFrom('domains').select('id').where('site_id', '=', PLATFORM_SITE_ID).execute()).toHaveLength(1)
  })

  it('moves the platform site to a new BASE_URL hostname and keeps the settings an operator changed', async () => {
    await updateSiteSettings(app.db, PLATFORM_SITE_ID, { assistant: { enabled: true, persona: 'Nova' } })
    await seedPlatformSite(app.db, 'https://platform.example:8443')
    const moved = await findSiteByHostname(app.db, 'platform.example')
    expect(moved?.id).toBe(PLATFORM_SITE_ID)
    expect(moved?.settings.assistant?.persona).toBe('Nova')
    expect(await findSiteByHostname(app.db, 'www.platform.test')).toBeUndefined()
    await seedPlatformSite(app.db, 'https://www.platform.test')
  })

  it('keys sites by lower-case hostname and refuses a second site on the same hostname', async () => {
    const site = await createSite(app.db, { name: 'Case', hostname: 'CaSe.Example.' })
    expect(site.id).toMatch(/^site_/)
    expect(site.status).toBe('draft')
    expect((await findSiteByHostname(app.db, 'CASE.example'))?.id).toBe(site.id)
    await expect(createSite(app.db, { name: 'Dup', hostname: 'case.example' })).rejects.toThrow()
  })

  it('applies safe defaults to assistant settings: off, no booking without a url', () => {
    expect(resolveAssistant({})).toEqual({
      enabled: false,
      persona: undefined,
      capabilities: { booking: false, lead: false, handoff: false },
    })
    expect(resolveAssistant({ assistant: { enabled: true, capabilities: { booking: true } } }).capabilities.booking).toBe(false)
  })
})

describe('lead consent', () => {
  it('digests {version, locale, text, privacy} in canonical form, independent of key order', () => {
    const a = consentDigest({ version: CONSENT_VERSION, locale: 'en', text: 'T', privacy: { label: 'L', url: '/p' } })
    const b = consentDigest({ privacy: { url: '/p', label: 'L' }, text: 'T', locale: 'en', version: CONSENT_VERSION } as never)
    expect(a).toBe(b)
    expect(a).toMatch(/^[0-9a-f]{64}$/)
    expect(consentDigest({ version: CONSENT_VERSION, locale: 'en', text: 'T.', privacy: { label: 'L', url: '/p' } })).not.toBe(a)
  })

  it('uses the site wording where given and the defaults elsewhere', () => {
    const own = { assistant: { lead_consent: { de: { text: 'Eigener Text', privacy: { label: 'DS', url: '/ds' } } } } }
    expect(leadConsentFor(own, 'de').text).toBe('Eigener Text')
    expect(leadConsentFor(own, 'fr').text).toBe(DEFAULT_CONSENT.fr.text)
  })
})

describe('leads', () => {
  it('seals personal fields bound to their row, so a sealed value cannot be moved to another lead', async () => {
    const site = await createSite(app.db, { name: 'Leads', hostname: 'leads.example' })
    const consent = { version: CONSENT_VERSION, digest: 'f'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
    const first = await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      email: 'one@example.com',
      consent,
      source: 'assistant',
    })
    const second = await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      email: 'two@example.com',
      name: 'Two',
      consent,
      source: 'assistant',
    })
    expect(first).toMatch(/^lead_/)
    const leads = await listLeads(app.db, app.keyring, site.id)
    expect(leads.map((l) => l.email).sort()).toEqual(['one@example.com', 'two@example.com'])

    const row = await app.db.selectFrom('leads').select('email_sealed').where('id', '=', first!).executeTakeFirstOrThrow()
    await app.db.updateTable('leads').set({ email_sealed: row.email_sealed }).where('id', '=', second!).execute()
    await expect(listLeads(app.db, app.keyring, site.id)).rejects.toThrow()
  })
})
