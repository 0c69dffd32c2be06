import { until } from '../helpers/polling.ts'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { claimAgent, connect, post, preClaimToken, registerAgent, textOf } from './helpers.ts'

// Several claim ceremonies come from 127.0.0.1 within a minute; the limits are tested elsewhere.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })

const ACCOUNT_TOOLS = [
  'list_sites',
  'get_site',
  'get_site_stats',
  'list_themes',
  'list_templates',
  'list_pages',
  'get_page',
  'list_leads',
  'update_lead',
  'create_site',
  'update_site',
  'create_page',
  'update_page',
  'delete_page',
  'add_block',
  'update_block',
  'delete_block',
  'list_page_revisions',
  'restore_page_revision',
  'publish_site',
  'add_domain',
  'list_media',
  'import_media',
  'update_media',
  'delete_media',
  'get_billing',
  'list_invoices',
  'change_plan',
  'open_billing_portal',
]

type Structured = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the agent flow: registration to a published page', () => {
  it('registers, reads, is claimed, steps up, builds a site and publishes it', async () => {
    // 1. Register and exchange the identity assertion (RFC 7523): a pre-claim token, mcp:read.
    const registration = await registerAgent(base)
    const preClaim = await preClaimToken(base, registration)
    const agent = await connect(base, preClaim)
    const { tools } = await agent.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['audit_domain', 'check_site_quality', 'get_core_web_vitals', 'get_pricing', ...ACCOUNT_TOOLS].sort(),
    )

    // 2. Public tools work before any claim.
    expect((await agent.callTool({ name: 'get_pricing', arguments: {} })).structuredContent).toMatchObject({ currency: 'EUR' })

    // 3. An account tool tells the unclaimed agent how to get claimed.
    const unclaimed = await agent.callTool({ name: 'list_sites', arguments: {} })
    expect(unclaimed.isError).toBe(true)
    expect(textOf(unclaimed)).toMatch(/^claim_required: /)
    expect(textOf(unclaimed)).toContain(`${base}/agent/identity/claim`)
    expect(textOf(unclaimed)).toContain('urn:presence:agent-auth:grant-type:claim')

    // 4. A tool that changes things answers 403 insufficient_scope naming mcp:tools (step-up).
    const denied = await post(
      base,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_site', arguments: { name: 'Nope' } } },
      { authorization: `Bearer ${preClaim}` },
    )
    expect(denied.status).toBe(403)
    const challenge = denied.headers.get('www-authenticate') ?? ''
    expect(challenge).toMatch(/^Bearer error="insufficient_scope"/)
    expect(challenge).toContain('scope="mcp:tools"')
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`)
    expect(challenge).toContain('/agent/identity/claim')
    await expect(agent.callTool({ name: 'create_site', arguments: { name: 'Nope' } })).rejects.toThrow()

    // 5. A person claims the agent; the post-claim token acts for their account.
    const { token, accountId } = await claimAgent(app, base, registration, 'owner@example.com')
    expect(accountId).toMatch(/^acct_/)
    const owner = await connect(base, token)

    // 6. The person's account starts on plan free: no API access, as on /v1.
    const free = await owner.callTool({ name: 'list_sites', arguments: {} })
    expect(free.isError).toBe(true)
    expect(textOf(free)).toMatch(/^plan_required: /)
    await updateAccount(app.db, accountId, { plan: 'plus' })
    expect((await owner.callTool({ name: 'list_sites', arguments: {} })).structuredContent).toEqual({
      data: [],
      meta: { total: 0, page: 1, per_page: 20 },
    })
    const readOnly = await owner.callTool({ name: 'create_site', arguments: { name: 'Bakery' } })
    expect(textOf(readOnly)).toMatch(/^plan_required: .*pro/)
    await updateAccount(app.db, accountId, { plan: 'pro' })

    // 7. Build a site: a site, a home page, blocks.
    const created = await owner.callTool({
      name: 'create_site',
      arguments: { name: 'Bäckerei Sonne', locales: ['de', 'en'], default_locale: 'de' },
    })
    expect(created.isError).toBeFalsy()
    const site = created.structuredContent as Structured
    expect(site).toMatchObject({
      id: expect.stringMatching(/^site_/),
      name: 'Bäckerei Sonne',
      status: 'draft',
      domain: null,
      default_locale: 'de',
      locales: ['de', 'en'],
      preview_url: `${base}/s/${site['id']}/`,
      published_at: null,
    })

    const page = (
      await owner.callTool({
        name: 'create_page',
        arguments: {
          site_id: site['id'],
          path: '/',
          title: 'Frisches Brot jeden Morgen',
          description: 'Handwerksbäckerei in der Altstadt',
        },
      })
    ).structuredContent as Structured
    expect(page).toMatchObject({ id: expect.stringMatching(/^page_/), site_id: site['id'], path: '/', locale: 'de' })
    const hero = await owner.callTool({
      name: 'add_block',
      arguments: {
        page_id: page['id'],
        type: 'hero',
        content: { heading: 'Frisches Brot', subheading: 'Seit 1921', cta: { label: 'Kontakt', href: '/kontakt' } },
      },
    })
    expect(hero.structuredContent).toMatchObject({ type: 'hero', position: 0 })
    const faq = await owner.callTool({
      name: 'add_block',
      arguments: { page_id: page['id'], type: 'faq', content: { items: [{ question: 'Wann öffnet ihr?', answer: 'Um sechs Uhr.' }] } },
    })
    const text = await owner.callTool({
      name: 'add_block',
      arguments: { page_id: page['id'], type: 'text', content: { markdown: 'Wir backen **jeden Tag**.' }, position: 1 },
    })
    expect(text.structuredContent).toMatchObject({ position: 1 })
    const moved = await owner.callTool({
      name: 'update_block',
      arguments: { block_id: (faq.structuredContent as Structured)['id'], position: 0 },
    })
    expect(moved.structuredContent).toMatchObject({ position: 0 })
    const badContent = await owner.callTool({
      name: 'add_block',
      arguments: { page_id: page['id'], type: 'cta', content: { heading: 'Go', label: 'Click', href: 'javascript:alert(1)' } },
    })
    expect(badContent.isError).toBe(true)

    const full = (await owner.callTool({ name: 'get_page', arguments: { page_id: page['id'] } })).structuredContent as Structured
    expect(full['blocks'].map((b: Structured) => [b['type'], b['position']])).toEqual([
      ['faq', 0],
      ['hero', 1],
      ['text', 2],
    ])

    // 8. Publish: the build goes live and the preview serves the page.
    const published = (await owner.callTool({ name: 'publish_site', arguments: { site_id: site['id'] } })).structuredContent as Structured
    expect(published).toMatchObject({ created: true, build: { status: 'queued', site_id: site['id'] }, preview_url: site['preview_url'] })
    const live = await until(
      async () => {
        const current = (await owner.callTool({ name: 'get_site', arguments: { site_id: site['id'] } })).structuredContent as Structured
        return current['status'] === 'live' ? current : undefined
      },
      20_000,
      'the site to go live',
    )
    expect(live['published_at']).toEqual(expect.any(String))
    const preview = await fetch(site['preview_url'] as string)
    expect(preview.status).toBe(200)
    const html = await preview.text()
    expect(html).toContain('Frisches Brot')
    expect(html).toContain('Wann öffnet ihr?')

    // 9. Every tool call of the account is in its audit log, named by the tool.
    // Reads are written in batches, so the test waits for what it checks rather than a count: how
    // many get_site polls the build took varies with how fast it went live.
    const expected = ['list_sites', 'create_site', 'create_page', 'add_block', 'update_block', 'get_page', 'publish_site', 'get_site']
    const operations = await until(
      async () => {
        const rows = await app.db
          .selectFrom('audit_log')
          .select(['operation', 'status', 'method', 'path', 'client_id'])
          .where('account_id', '=', accountId)
          .execute()
        const refused = rows.filter((r) => r.status === 403).map((r) => r.operation)
        const answered = rows.filter((r) => r.status === 200).map((r) => r.operation)
        const complete =
          expected.every((operation) => answered.includes(operation)) && refused.includes('list_sites') && refused.includes('create_site')
        return complete ? rows : undefined
      },
      60_000,
      'the audit records',
    )
    expect(new Set(operations.map((r) => r.operation))).toEqual(new Set(expected))
    expect(operations.length).toBeGreaterThanOrEqual(12)
    expect(operations.filter((r) => r.status === 403).map((r) => r.operation)).toEqual(
      expect.arrayContaining(['list_sites', 'create_site']),
    )
    expect(operations.every((r) => r.method === 'POST' && r.path === '/mcp' && r.client_id === registration.registration_id)).toBe(true)
    // Above the waits' own deadlines (20 s for the build, 60 s for the batched audit records), so a
    // slow step fails with its name rather than as a bare test timeout.
  }, 90_000)
})
