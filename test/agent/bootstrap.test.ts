import { describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/infra/crypto.ts'
import { canonicalJson } from '../../src/domain/leads/consent.ts'
import { listLeads } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { bootstrap, chat, event, expectAgentError, freshIp } from './helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })

const shop = await createSite(app.db, {
  name: 'Bäckerei Sonne',
  hostname: 'shop.example',
  defaultLocale: 'de',
  settings: { assistant: { enabled: true, capabilities: { booking: false, lead: false, handoff: false } } },
})
await createSite(app.db, { name: 'Quiet', hostname: 'quiet.example', settings: { assistant: { enabled: false } } })
await createSite(app.db, { name: 'Offline', hostname: 'offline.example', status: 'offline', settings: { assistant: { enabled: true } } })
await createSite(app.db, {
  name: 'Atelier',
  hostname: 'atelier.example',
  defaultLocale: 'fr',
  settings: {
    assistant: {
      enabled: true,
      persona: 'Chloé',
      capabilities: { lead: true },
      lead_consent: { fr: { text: 'Je consens à être recontacté.', privacy: { label: 'Confidentialité', url: '/confidentialite' } } },
    },
  },
})

const post = (payload: unknown, remoteAddress = freshIp()) =>
  app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: payload as object, remoteAddress })
const erase = (payload: unknown) =>
  app.inject({ method: 'DELETE', url: '/api/agent/bootstrap', payload: payload as object, remoteAddress: freshIp() })

describe('POST /api/agent/bootstrap (create)', () => {
  it('opens a session on the platform site when no url is given, with every field of the contract', async () => {
    const s = await bootstrap(app)
    expect(s.session_id).toMatch(/^ag_[A-Za-z0-9_-]{22}$/)
    expect(s.session_token).toHaveLength(43)
    expect(s).toMatchObject({
      locale: 'en',
      persona: 'Ava',
      capabilities: { booking: true, booking_url: 'https://platform.test/demo', lead: true, handoff: true },
      messages: [],
      handoff: { state: 'none' },
    })
    const opener = s['opener'] as { text: string; suggestions: unknown[] }
    expect(opener.text).toContain('Ava')
    expect(opener.suggestions).toHaveLength(2)
    // The digest is SHA-256 of the RFC 8785 form of {version, locale, text, privacy}, reproducible by anyone.
    const consent = s.lead_consent as unknown as {
      version: string
      locale: string
      text: string
      privacy: { label: string; url: string }
      digest: string
    }
    expect(consent.version).toBe('2026-07-24.1')
    expect(consent.digest).toBe(
      sha256Hex(canonicalJson({ version: consent.version, locale: consent.locale, text: consent.text, privacy: consent.privacy })),
    )
  })

  it('stores the token only as its SHA-256 hash', async () => {
    const s = await bootstrap(app)
    const row = await app.db.selectFrom('agent_sessions').selectAll().where('id', '=', s.session_id).executeTakeFirstOrThrow()
    expect(row.token_hash).toBe(sha256Hex(s.session_token))
    expect(JSON.stringify(row)).not.toContain(s.session_token)
  })

  it('resolves the locale from the body, then the url path prefix, then the site default', async () => {
    expect((await bootstrap(app, { locale: 'fr', url: 'https://platform.test/de/pricing' })).locale).toBe('fr')
    expect((await bootstrap(app, { url: 'https://platform.test/de/pricing' })).locale).toBe('de')
    expect((await bootstrap(app, { url: '/fr' })).locale).toBe('fr')
    expect((await bootstrap(app, { url: 'https://platform.test/pricing' })).locale).toBe('en')
    expect((await bootstrap(app, { url: 'https://shop.example/angebote' })).locale).toBe('de')
  })

  it('picks the site by the hostname of the url, with its capabilities and no consent when it takes no leads', async () => {
    const s = await bootstrap(app, { url: 'https://SHOP.example/brot?x=1' })
    expect(s.capabilities).toEqual({ booking: false, lead: false, handoff: false })
    expect(s.lead_consent).toBeNull()
    expect(s['persona']).toBeUndefined()
    const row = await app.db.selectFrom('agent_sessions').select('site_id').where('id', '=', s.session_id).executeTakeFirstOrThrow()
    expect(row.site_id).toBe(shop.id)
    expect((s['opener'] as { text: string }).text).toContain('Bäckerei Sonne')
  })

  it("hands out the site's own consent wording in the session's locale", async () => {
    const s = await bootstrap(app, { url: 'https://atelier.example/' })
    expect(s.locale).toBe('fr')
    expect(s.lead_consent).toMatchObject({
      locale: 'fr',
      text: 'Je consens à être recontacté.',
      privacy: { label: 'Confidentialité', url: '/confidentialite' },
    })
    expect(s['persona']).toBe('Chloé')
  })

  it('answers 404 feature disabled for an unknown site, a disabled assistant and a site taken offline', async () => {
    for (const url of ['https://unknown.example/', 'https://quiet.example/', 'https://offline.example/']) {
      expectAgentError(await post({ url }), 404, 'feature-disabled')
    }
  })

  it('refuses invalid requests with 400 AgentError', async () => {
    expectAgentError(await post({ url: 'x'.repeat(501) }), 400, 'invalid-request')
    expectAgentError(await post({ locale: 'es' }), 400, 'invalid-request')
    expectAgentError(await post({ unknown: 1 }), 400, 'invalid-request')
    expectAgentError(await post({ url: 'javascript:alert(1)' }), 400, 'invalid-request')
    expectAgentError(await post({ url: 'http://[::1' }), 400, 'invalid-request')
    expectAgentError(await post([]), 400, 'invalid-request')
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { 'content-type': 'application/json' },
      payload: '{"url":',
      remoteAddress: freshIp(),
    })
    expectAgentError(malformed, 400, 'malformed-json')
    const text = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { 'content-type': 'text/plain' },
      payload: 'hi',
      remoteAddress: freshIp(),
    })
    expectAgentError(text, 400, 'invalid-request')
    const xml = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
      remoteAddress: freshIp(),
    })
    expectAgentError(xml, 400, 'unsupported-media-type')
    const huge = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'a'.repeat(2_000_000) }),
      remoteAddress: freshIp(),
    })
    expectAgentError(huge, 400, 'body-too-large')
  })

  it('answers 404 AgentError for unknown paths and methods under /api/agent', async () => {
    expectAgentError(await app.inject({ method: 'GET', url: '/api/agent/bootstrap', remoteAddress: freshIp() }), 404, 'not-found')
    expectAgentError(await app.inject({ method: 'POST', url: '/api/agent/nothing', remoteAddress: freshIp() }), 404, 'not-found')
  })
})

describe('POST /api/agent/bootstrap (rehydrate)', () => {
  it('returns the stored transcript and handoff state with the same capability', async () => {
    const s = await bootstrap(app)
    expect((await chat(app, s, 'How much does the Pro plan cost?')).statusCode).toBe(200)
    const again = await bootstrap(app, { session_id: s.session_id, session_token: s.session_token })
    expect(again.session_id).toBe(s.session_id)
    expect(again.session_token).toBe(s.session_token)
    const messages = again['messages'] as Array<{ role: string; text: string }>
    expect(messages.map((m) => m.role)).toEqual(['visitor', 'assistant'])
    expect(messages[0]!.text).toBe('How much does the Pro plan cost?')
    expect(messages[1]!.text).toContain('€49')
    expect(again.handoff).toEqual({ state: 'none' })
  })

  it('keeps the session locale (the body locale does not change it)', async () => {
    const s = await bootstrap(app, { locale: 'de' })
    expect((await bootstrap(app, { session_id: s.session_id, session_token: s.session_token, locale: 'fr' })).locale).toBe('de')
  })

  it('stores the transcript sealed, not in clear', async () => {
    const s = await bootstrap(app)
    await chat(app, s, 'my phone is 0151 2345678')
    const rows = await app.db.selectFrom('agent_messages').select('text_sealed').where('session_id', '=', s.session_id).execute()
    expect(rows.length).toBe(2)
    for (const r of rows) expect(r.text_sealed).toMatch(/^v1\./)
    expect(JSON.stringify(rows)).not.toContain('0151')
  })

  it('makes a wrong token indistinguishable from an unknown session (404) and a malformed id a 400', async () => {
    const s = await bootstrap(app)
    const wrongToken = 'A'.repeat(43)
    const a = await post({ session_id: s.session_id, session_token: wrongToken })
    const b = await post({ session_id: 'ag_doesnotexist', session_token: wrongToken })
    expectAgentError(a, 404, 'session-not-found')
    expectAgentError(b, 404, 'session-not-found')
    expect(a.body).toBe(b.body)
    expectAgentError(await post({ session_id: 'xx_bad', session_token: s.session_token }), 400, 'invalid-session-id')
    expectAgentError(await post({ session_id: s.session_id, session_token: 'short' }), 400, 'invalid-request')
    expectAgentError(await post({ session_id: s.session_id }), 400)
  })

  it('answers 404 feature disabled once the site switched its assistant off', async () => {
    const site = await createSite(app.db, { name: 'Flip', hostname: 'flip.example', settings: { assistant: { enabled: true } } })
    const s = await bootstrap(app, { url: 'https://flip.example/' })
    await app.db
      .updateTable('sites')
      .set({ settings: JSON.stringify({ assistant: { enabled: false } }) })
      .where('id', '=', site.id)
      .execute()
    expectAgentError(await post({ session_id: s.session_id, session_token: s.session_token }), 404, 'feature-disabled')
  })
})

describe('DELETE /api/agent/bootstrap', () => {
  it('erases the session with its messages, turns and events; the lead stays with the site, unlinked', async () => {
    const s = await bootstrap(app)
    await chat(app, s, 'Tell me about domains')
    await event(app, s, 'assistant_opened')
    const lead = await event(app, s, 'lead_submitted', {
      email: 'erase@example.com',
      consent: true,
      consent_version: '2026-07-24.1',
      consent_digest: s.lead_consent!.digest,
    })
    expect(lead.statusCode).toBe(202)

    const res = await erase({ session_id: s.session_id, session_token: s.session_token })
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    for (const table of ['agent_sessions', 'agent_messages', 'agent_turns', 'agent_events'] as const) {
      const column = table === 'agent_sessions' ? 'id' : 'session_id'
      const rows = await app.db
        .selectFrom(table)
        .select(column as never)
        .where(column as never, '=', s.session_id as never)
        .execute()
      expect(rows, table).toHaveLength(0)
    }
    const leads = (await listLeads(app.db, app.keyring, 'site_platform')).filter((l) => l.email === 'erase@example.com')
    expect(leads).toHaveLength(1)
    expect(leads[0]!.sessionId).toBeNull()

    expectAgentError(await post({ session_id: s.session_id, session_token: s.session_token }), 404, 'session-not-found')
    expectAgentError(await erase({ session_id: s.session_id, session_token: s.session_token }), 404, 'session-not-found')
  })

  it('answers 404 for a wrong token (and erases nothing), 400 for an invalid session id or body', async () => {
    const s = await bootstrap(app)
    expectAgentError(await erase({ session_id: s.session_id, session_token: 'B'.repeat(43) }), 404, 'session-not-found')
    expect((await bootstrap(app, { session_id: s.session_id, session_token: s.session_token })).session_id).toBe(s.session_id)
    expectAgentError(await erase({ session_id: 'nope', session_token: s.session_token }), 400, 'invalid-session-id')
    expectAgentError(await erase({ session_id: s.session_id, session_token: s.session_token, extra: true }), 400, 'invalid-request')
    expectAgentError(await erase({}), 400)
  })
})
