import type { Client } from '@modelcontextprotocol/client'
import { beforeAll, describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { dnsResolver } from '../../src/domain/sites/dns-verify.ts'
import { verifyDomain } from '../../src/domain/sites/domains.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { startDnsServer } from '../helpers/dns-server.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { claimAgent, connect, preClaimToken, registerAgent, textOf } from './helpers.ts'

const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })

type Structured = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

interface Owner {
  client: Client
  accountId: string
}

async function owner(email: string, era: 'modern' | 'legacy' = 'modern'): Promise<Owner> {
  const { token, accountId } = await claimAgent(app, base, await registerAgent(base), email)
  await updateAccount(app.db, accountId, { plan: 'pro' })
  return { client: await connect(base, token, era), accountId }
}

async function call(who: Owner, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = await who.client.callTool({ name, arguments: args })
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy()
  return result.structuredContent as Structured
}

async function refusal(who: Owner, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await who.client.callTool({ name, arguments: args })
  expect(result.isError, name).toBe(true)
  expect(textOf(result)).not.toMatch(/at .*\.ts:\d+/)
  return textOf(result)
}

let alice: Owner
let bob: Owner
let site: Structured
let page: Structured
let block: Structured
beforeAll(async () => {
  alice = await owner('alice@example.com')
  bob = await owner('bob@example.com', 'legacy')
  site = await call(alice, 'create_site', { name: 'Alice Studio', locales: ['en', 'fr'] })
  page = await call(alice, 'create_page', { site_id: site['id'], path: '/about', title: 'About us', description: 'Who we are' })
  block = await call(alice, 'add_block', {
    page_id: page['id'],
    type: 'hero',
    content: { heading: 'Design that <works>', cta: { label: 'Write to us', href: '/contact' } },
  })
  await call(alice, 'add_block', { page_id: page['id'], type: 'testimonial', content: { quote: 'Great work', author: 'Carla' } })
})

describe('account tools', () => {
  it("another account's sites, pages and blocks are not found, never forbidden", async () => {
    expect(await refusal(bob, 'get_site', { site_id: site['id'] })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'list_pages', { site_id: site['id'] })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'get_page', { page_id: page['id'] })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'update_page', { page_id: page['id'], title: 'Mine now' })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'delete_page', { page_id: page['id'] })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'update_block', { block_id: block['id'], position: 0 })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'delete_block', { block_id: block['id'] })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'add_block', { page_id: page['id'], type: 'text', content: { markdown: 'x' } })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'create_page', { site_id: site['id'], path: '/x', title: 'X' })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'publish_site', { site_id: site['id'] })).toMatch(/^not_found: /)
    expect(await refusal(bob, 'add_domain', { site_id: site['id'], hostname: 'bob.example' })).toMatch(/^not_found: /)
    expect((await call(bob, 'list_sites', {}))['data']).toEqual([])
    expect((await call(alice, 'get_page', { page_id: page['id'] }))['title']).toBe('About us')
  })

  it("lists and pages through the account's sites and pages in the /v1 envelope", async () => {
    await call(alice, 'create_site', { name: 'Second' })
    const first = await call(alice, 'list_sites', { per_page: 1 })
    expect(first).toMatchObject({ meta: { total: 2, page: 1, per_page: 1 }, data: [{ id: site['id'], name: 'Alice Studio' }] })
    expect((await call(alice, 'list_sites', { page: 2, per_page: 1 }))['data'][0]['name']).toBe('Second')
    expect(await call(alice, 'list_pages', { site_id: site['id'] })).toMatchObject({
      meta: { total: 1 },
      data: [{ id: page['id'], path: '/about', locale: 'en' }],
    })
    expect(await refusal(alice, 'list_sites', { per_page: 500 })).toMatch(/per_page/)
  })

  it('changes pages and blocks and refuses what the model refuses', async () => {
    const other = await call(alice, 'create_page', { site_id: site['id'], path: '/', locale: 'fr', title: 'Accueil' })
    expect(await refusal(alice, 'update_page', { page_id: other['id'], path: '/about', locale: 'en' })).toMatch(/^page_path_taken: /)
    expect(await refusal(alice, 'create_page', { site_id: site['id'], path: '/', locale: 'de', title: 'Start' })).toMatch(
      /^locale_not_on_site: /,
    )
    expect(await refusal(alice, 'create_page', { site_id: site['id'], path: 'About Us', title: 'Bad' })).toMatch(/path/)
    expect(await call(alice, 'update_page', { page_id: other['id'], title: 'Bienvenue' })).toMatchObject({
      title: 'Bienvenue',
      path: '/',
      locale: 'fr',
    })

    const text = await call(alice, 'add_block', { page_id: other['id'], type: 'text', content: { markdown: 'Bonjour' } })
    const cta = await call(alice, 'add_block', {
      page_id: other['id'],
      type: 'cta',
      content: { heading: 'Écrivez-nous', label: 'Contact', href: 'mailto:hi@example.com' },
      position: 0,
    })
    expect(cta['position']).toBe(0)
    expect(await refusal(alice, 'add_block', { page_id: other['id'], type: 'video', content: {} })).toMatch(/type/)
    expect(await refusal(alice, 'add_block', { page_id: other['id'], type: 'text', content: { markdown: 'x' }, position: 9 })).toMatch(
      /^position_out_of_range: /,
    )
    expect(await refusal(alice, 'update_block', { block_id: text['id'], type: 'faq' })).toMatch(/^invalid_block_content: /)
    expect(await call(alice, 'update_block', { block_id: text['id'], content: { markdown: 'Salut' } })).toMatchObject({
      content: { markdown: 'Salut' },
      position: 1,
    })
    expect(await call(alice, 'delete_block', { block_id: cta['id'] })).toEqual({ id: cta['id'], deleted: true })
    expect((await call(alice, 'get_page', { page_id: other['id'] }))['blocks']).toEqual([
      expect.objectContaining({ id: text['id'], position: 0 }),
    ])
    expect(await call(alice, 'delete_page', { page_id: other['id'] })).toEqual({ id: other['id'], deleted: true })
    expect(await refusal(alice, 'get_page', { page_id: other['id'] })).toMatch(/^not_found: /)
    expect(await refusal(alice, 'delete_block', { block_id: text['id'] })).toMatch(/^not_found: /)
  })

  it('changes a site; a site never built cannot go live', async () => {
    const changed = await call(alice, 'update_site', {
      site_id: site['id'],
      name: 'Alice Design Studio',
      assistant: { enabled: true, persona: 'Friendly', lead: true },
    })
    expect(changed).toMatchObject({ name: 'Alice Design Studio', assistant: { enabled: true, persona: 'Friendly', lead: true } })
    expect(await refusal(alice, 'update_site', { site_id: site['id'], status: 'live' })).toMatch(/^site_not_built: /)
    expect(await refusal(alice, 'update_site', { site_id: site['id'], default_locale: 'de' })).toMatch(/^invalid_locales: /)
  })

  it("adds a domain pending its TXT challenge; refuses IPs and the service's own hostnames", async () => {
    const domain = await call(alice, 'add_domain', { site_id: site['id'], hostname: 'Alice-Studio.example' })
    expect(domain).toMatchObject({
      hostname: 'alice-studio.example',
      status: 'pending',
      primary: true,
      verification: { type: 'TXT', name: '_wps-challenge.alice-studio.example', value: expect.stringMatching(/^wps-verify=/) },
      verified_at: null,
      failure_reason: null,
    })
    expect(await refusal(alice, 'add_domain', { site_id: site['id'], hostname: 'alice-studio.example' })).toMatch(/^hostname_taken: /)
    expect(await refusal(alice, 'add_domain', { site_id: site['id'], hostname: '203.0.113.9' })).toMatch(/^invalid_hostname: /)
    expect(await refusal(alice, 'add_domain', { site_id: site['id'], hostname: 'shop.localhost' })).toMatch(
      /^invalid_hostname: .*service itself/,
    )
  })

  it("lists the account's leads with their consent, opened from their sealed fields", async () => {
    const consent = { version: '2026-07-24.1', digest: 'sha256:abc', locale: 'en' as const, acceptedAt: new Date('2026-11-20T10:00:00Z') }
    await insertLead(app.db, app.keyring, {
      siteId: site['id'],
      sessionId: null,
      email: 'visitor@example.org',
      name: 'Vera',
      note: 'Call me',
      consent,
      source: 'contact_form',
    })
    const leads = await call(alice, 'list_leads', { site_id: site['id'] })
    expect(leads).toMatchObject({
      meta: { total: 1 },
      data: [
        {
          site_id: site['id'],
          source: 'contact_form',
          email: 'visitor@example.org',
          name: 'Vera',
          note: 'Call me',
          consent: { version: '2026-07-24.1', locale: 'en', given_at: '2026-11-20T10:00:00.000Z' },
        },
      ],
    })
    expect((await call(alice, 'list_leads', { since: new Date(Date.now() + 60_000).toISOString() }))['data']).toEqual([])
    expect((await call(bob, 'list_leads', {}))['data']).toEqual([])
    expect(await refusal(bob, 'list_leads', { site_id: site['id'] })).toMatch(/^not_found: /)
  })

  it("counts calls against the account's hourly quota and records the refusals", async () => {
    const carol = await owner('carol@example.com')
    const used =
      (await app.db.selectFrom('api_quota').select('used').where('account_id', '=', carol.accountId).executeTakeFirst())?.used ?? 0
    await updateAccount(app.db, carol.accountId, { quotaOverride: used + 2 })
    await call(carol, 'list_sites', {})
    await call(carol, 'list_sites', {})
    expect(await refusal(carol, 'list_sites', {})).toMatch(/^rate_limited: .*retry in \d+ seconds/)
    const deadline = Date.now() + 15_000
    let statuses: number[] = []
    while (Date.now() < deadline) {
      statuses = (
        await app.db
          .selectFrom('audit_log')
          .select('status')
          .where('account_id', '=', carol.accountId)
          .where('operation', '=', 'list_sites')
          .execute()
      ).map((r) => r.status)
      if (statuses.length >= 3) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(statuses.sort()).toEqual([200, 200, 429])
  })
})

describe('resources', () => {
  it("lists the resource templates and the account's sites", async () => {
    const { resourceTemplates } = await alice.client.listResourceTemplates()
    expect(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType])).toEqual([
      ['wps://sites/{id}', 'text/markdown'],
      ['wps://pages/{id}', 'text/markdown'],
    ])
    const { resources } = await alice.client.listResources()
    expect(resources).toContainEqual(expect.objectContaining({ uri: `wps://sites/${site['id']}`, mimeType: 'text/markdown' }))
    expect((await bob.client.listResources()).resources).toEqual([])
  })

  it('reads a site and a page as Markdown', async () => {
    const siteDoc = await alice.client.readResource({ uri: `wps://sites/${site['id']}` })
    const siteText = (siteDoc.contents[0] as { text: string }).text
    expect(siteDoc.contents[0]).toMatchObject({ uri: `wps://sites/${site['id']}`, mimeType: 'text/markdown' })
    expect(siteText).toMatch(/^# Alice/)
    expect(siteText).toContain(`[About us](wps://pages/${page['id']})`)
    expect(siteText).toContain(`${base}/s/${site['id']}/`)
    // The domain added above, checked against a DNS server without its record: the resource says why it failed.
    const dns = await startDnsServer()
    const domain = await app.db.selectFrom('domains').select('id').where('hostname', '=', 'alice-studio.example').executeTakeFirstOrThrow()
    await verifyDomain(app.db, dnsResolver(dns.address), domain.id)
    await dns.close()
    const checked = (await alice.client.readResource({ uri: `wps://sites/${site['id']}` })).contents[0] as { text: string }
    expect(checked.text).toContain(
      '## Domains\n\n- alice-studio.example (primary): failed, no_record: No TXT record was found at \\_wps-challenge.alice-studio.example (TXT `_wps-challenge.alice-studio.example` = `wps-verify=',
    )

    const pageDoc = await alice.client.readResource({ uri: `wps://pages/${page['id']}` })
    const pageText = (pageDoc.contents[0] as { text: string }).text
    expect(pageText).toMatch(/^# Design that \\<works\\>/)
    expect(pageText).toContain('> Who we are')
    expect(pageText).toContain(`](<${base}/s/${site['id']}/contact>)`)
    expect(pageText).toContain('> Great work')
  })

  it("another account's resources are not found; an unclaimed agent is told to get claimed", async () => {
    await expect(bob.client.readResource({ uri: `wps://pages/${page['id']}` })).rejects.toThrow(/not found/i)
    await expect(bob.client.readResource({ uri: `wps://sites/${site['id']}` })).rejects.toThrow(/not found/i)
    const stranger = await connect(base, await preClaimToken(base, await registerAgent(base)))
    expect((await stranger.listResources()).resources).toEqual([])
    await expect(stranger.readResource({ uri: `wps://sites/${site['id']}` })).rejects.toThrow(/claim/)
    await expect(alice.client.readResource({ uri: 'wps://elsewhere/1' })).rejects.toThrow()
  })
})
