import { describe, expect, it } from 'vitest'
import { METRIC_EVENT_TYPES } from '../../src/agent/schemas.ts'
import { listLeads } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { contractErrors } from './contract.ts'
import { bootstrap, event, expectAgentError, freshIp, type Session } from './helpers.ts'

// No job workers: what a lead records for the webhooks stays as it was written.
const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test', JOB_CONCURRENCY: '0' } })
const noLeads = await createSite(app.db, {
  name: 'No leads',
  hostname: 'noleads.example',
  settings: { assistant: { enabled: true, capabilities: { lead: false } } },
})

const lead = (s: Session, overrides: Record<string, unknown> = {}) => ({
  email: 'visitor@example.com',
  name: 'Vera Visitor',
  note: 'Please call me about the Pro plan',
  consent: true,
  consent_version: '2026-07-24.1',
  consent_digest: s.lead_consent?.digest ?? '0'.repeat(64),
  ...overrides,
})

describe('POST /api/agent/event: interaction events', () => {
  it('accepts each of the eight interaction types with 200 AgentOk, and repeats too', async () => {
    const s = await bootstrap(app)
    for (const type of METRIC_EVENT_TYPES) {
      const res = await event(app, s, type)
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200)
      expect(contractErrors('ok', res.json())).toEqual([])
    }
    expect((await event(app, s, 'assistant_opened')).statusCode).toBe(200)
    const rows = await app.db
      .selectFrom('agent_events')
      .select(['type', 'count'])
      .where('session_id', '=', s.session_id)
      .orderBy('type')
      .execute()
    expect(rows).toHaveLength(8)
    expect(rows.find((r) => r.type === 'assistant_opened')?.count).toBe(2)
  })

  it('refuses an unknown type, a payload on an interaction event and unknown properties with 400', async () => {
    const s = await bootstrap(app)
    expectAgentError(await event(app, s, 'page_viewed'), 400, 'invalid-request')
    expectAgentError(await event(app, s, 'assistant_opened', { x: 1 }), 400, 'invalid-request')
    const extra = await app.inject({
      method: 'POST',
      url: '/api/agent/event',
      payload: { session_id: s.session_id, session_token: s.session_token, type: 'assistant_opened', extra: true },
      remoteAddress: freshIp(),
    })
    expectAgentError(extra, 400, 'invalid-request')
  })

  it('answers 404 for an unknown session and 400 for a malformed session id', async () => {
    const s = await bootstrap(app)
    expectAgentError(await event(app, { ...s, session_token: 'D'.repeat(43) }, 'assistant_opened'), 404, 'session-not-found')
    expectAgentError(await event(app, { ...s, session_id: 'ag_' + 'x'.repeat(198) }, 'assistant_opened'), 400, 'invalid-session-id')
  })
})

describe('POST /api/agent/event: lead_submitted', () => {
  it('accepts a consent-bound lead with 202, stores it sealed with its consent evidence and queues lead.received', async () => {
    const s = await bootstrap(app)
    const res = await event(app, s, 'lead_submitted', lead(s))
    expect(res.statusCode, res.body).toBe(202)
    expect(contractErrors('leadAccepted', res.json())).toEqual([])

    const rows = await app.db.selectFrom('leads').selectAll().where('session_id', '=', s.session_id).execute()
    expect(rows).toHaveLength(1)
    const row = rows[0]!
    expect(row.site_id).toBe('site_platform')
    expect(row.email_sealed).toMatch(/^v1\./)
    expect(JSON.stringify(row)).not.toMatch(/visitor@example\.com|Vera|Pro plan/)
    expect(row).toMatchObject({
      consent_version: '2026-07-24.1',
      consent_digest: s.lead_consent!.digest,
      consent_locale: 'en',
      source: 'assistant',
    })

    const opened = (await listLeads(app.db, app.keyring, 'site_platform')).find((l) => l.id === row.id)!
    expect(opened).toMatchObject({
      email: 'visitor@example.com',
      name: 'Vera Visitor',
      note: 'Please call me about the Pro plan',
      sessionId: s.session_id,
    })

    // The platform's own site has no account, so no webhook subscriber: no lead.received event
    // (test/webhooks/sources.test.ts covers the event for a customer's site).
    expect(await app.db.selectFrom('events').select('id').where('site_id', '=', 'site_platform').execute()).toHaveLength(0)
  })

  it('treats a repeated submission as the same lead: 202 again, nothing new stored', async () => {
    const s = await bootstrap(app)
    expect((await event(app, s, 'lead_submitted', lead(s, { email: 'Twice@Example.com' }))).statusCode).toBe(202)
    expect((await event(app, s, 'lead_submitted', lead(s, { email: 'twice@example.com' }))).statusCode).toBe(202)
    const rows = await app.db.selectFrom('leads').select('id').where('session_id', '=', s.session_id).execute()
    expect(rows).toHaveLength(1)
  })

  it('answers 409 for another consent version, even before any other check', async () => {
    const s = await bootstrap(app)
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { consent_version: '2025-01-01.1' })), 409, 'consent-version-mismatch')
    expect(await app.db.selectFrom('leads').select('id').where('session_id', '=', s.session_id).execute()).toHaveLength(0)
  })

  it('answers 400 for invalid consent evidence: another digest, the digest of another locale, consent false, a malformed digest', async () => {
    const s = await bootstrap(app)
    const fr = await bootstrap(app, { locale: 'fr' })
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { consent_digest: 'a'.repeat(64) })), 400, 'invalid-consent-evidence')
    expectAgentError(
      await event(app, s, 'lead_submitted', lead(s, { consent_digest: fr.lead_consent!.digest })),
      400,
      'invalid-consent-evidence',
    )
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { consent: false })), 400, 'invalid-request')
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { consent_digest: 'A'.repeat(64) })), 400, 'invalid-request')
    expect(await app.db.selectFrom('leads').select('id').where('session_id', '=', s.session_id).execute()).toHaveLength(0)
  })

  it('enforces the lead field limits of section 8', async () => {
    const s = await bootstrap(app)
    const at = (n: number) => `${'a'.repeat(n - '@example.com'.length)}@example.com`
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { email: 'a@' })), 400)
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { email: at(255) })), 400)
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { email: 'not-an-email' })), 400)
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { name: 'n'.repeat(201) })), 400)
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { note: 'n'.repeat(1001) })), 400)
    expectAgentError(await event(app, s, 'lead_submitted', lead(s, { unknown: 'x' })), 400)
    expect(
      (await event(app, s, 'lead_submitted', lead(s, { email: 'a@b.co', name: 'n'.repeat(200), note: 'n'.repeat(1000) }))).statusCode,
    ).toBe(202)
    expect(
      (
        await event(
          app,
          s,
          'lead_submitted',
          lead(s, { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.de` }),
        )
      ).statusCode,
    ).toBe(202)
  })

  it('answers 404 feature disabled on a site that takes no leads', async () => {
    const s = await bootstrap(app, { url: 'https://noleads.example/' })
    expect(s.lead_consent).toBeNull()
    expectAgentError(await event(app, s, 'lead_submitted', lead(s)), 404, 'feature-disabled')
    expect(await app.db.selectFrom('leads').select('id').where('site_id', '=', noLeads.id).execute()).toHaveLength(0)
  })
})
