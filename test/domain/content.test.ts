import { afterAll, describe, expect, it } from 'vitest'
import { checkBlockContent } from '../../src/domain/sites/block-content.ts'
import { deleteBlock, getAccountBlock, insertBlock, listPageBlocks, updateBlock } from '../../src/domain/sites/blocks.ts'
import { finishBuild, queueBuild, rollbackTo, startBuild } from '../../src/domain/sites/builds.ts'
import { dnsResolver } from '../../src/domain/sites/dns-verify.ts'
import { addDomain, deleteDomain, getAccountDomain, parseHostname, verifyDomain } from '../../src/domain/sites/domains.ts'
import { createPage, updatePage } from '../../src/domain/sites/pages.ts'
import {
  assistantEnabledOn,
  createAccountSite,
  createSite,
  deleteAccountSite,
  findSiteByHostname,
  getAccountSite,
  updateAccountSite,
} from '../../src/domain/sites/sites.ts'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startDnsServer } from '../helpers/dns-server.ts'

// These tests drive builds step by step themselves: no job runner may take a queued build meanwhile.
const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test', JOB_CONCURRENCY: '0' } })
const dns = await startDnsServer()
afterAll(() => dns.close())
const own = ['platform.test']
// Sites are made within their account's plan: the accounts exist, on a plan without a site limit, and
// acct_a's sites may run the assistant.
await app.db
  .insertInto('accounts')
  .values([
    { id: 'acct_a', plan: 'max' },
    { id: 'acct_b', plan: 'max' },
  ])
  .execute()
await setAddOn(app.db, { accountId: 'acct_a', addOn: 'ai_sales_assistant', on: true })

/** A registry error with this wire code (and status); @fastify/error keeps codes upper-cased. */
const coded = (code: string, status?: number) => (e: unknown) =>
  (e as { code?: string }).code?.toLowerCase() === code && (status === undefined || (e as { statusCode?: number }).statusCode === status)
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

async function newPage() {
  const site = await createAccountSite(app.db, 'acct_a', { name: 'Shop', locales: ['en', 'de'] })
  return createPage(app.db, site, { path: '/', title: 'Home' })
}

const positions = async (pageId: string) =>
  (await listPageBlocks(app.db, pageId, { limit: 100, offset: 0 })).items.map((b) => [
    b.position,
    (b.content as { markdown: string }).markdown,
  ])

describe('block content', () => {
  it('checks content against its type and names the failing field', () => {
    expect(checkBlockContent('faq', { items: [{ question: 'Q?', answer: 'A.' }] }).type).toBe('faq')
    expect(() => checkBlockContent('hero', { markdown: 'x' })).toThrow(/content\.heading' is required for a block of type hero/)
    expect(() => checkBlockContent('hero', { heading: 'H', markdown: 'x' })).toThrow(/content\.markdown' is not accepted/)
    expect(() => checkBlockContent('faq', { items: [{ title: 'T', text: 'x' }] })).toThrow(/content\.items\.0/)
    expect(() => checkBlockContent('cta', { heading: 'H', label: 'Go', href: 'javascript:alert(1)' })).toThrow(/href/)
    expect(() => checkBlockContent('text', { markdown: 'x'.repeat(20_001) })).toThrow(/at most 20000/)
  })
})

describe('blocks keep dense positions', () => {
  it('inserts at a position or at the end, moves and deletes, 0..n-1 throughout', async () => {
    const page = await newPage()
    const add = (markdown: string, position?: number) => insertBlock(app.db, page.id, { type: 'text', content: { markdown }, position })
    await add('a')
    await add('c')
    await add('b', 1)
    await add('first', 0)
    expect(await positions(page.id)).toEqual([
      [0, 'first'],
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ])
    await expect(add('far', 9)).rejects.toSatisfy(coded('position_out_of_range', 422))

    const blocks = (await listPageBlocks(app.db, page.id, { limit: 100, offset: 0 })).items
    await updateBlock(app.db, 'acct_a', blocks[0]!.id, { position: 3 })
    expect(await positions(page.id)).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
      [3, 'first'],
    ])
    await updateBlock(app.db, 'acct_a', blocks[3]!.id, { position: 0 })
    expect(await positions(page.id)).toEqual([
      [0, 'c'],
      [1, 'a'],
      [2, 'b'],
      [3, 'first'],
    ])
    await expect(updateBlock(app.db, 'acct_a', blocks[3]!.id, { position: 4 })).rejects.toSatisfy(coded('position_out_of_range'))
    await deleteBlock(app.db, 'acct_a', blocks[1]!.id)
    expect(await positions(page.id)).toEqual([
      [0, 'c'],
      [1, 'b'],
      [2, 'first'],
    ])
  })

  it('stays dense under concurrent inserts, moves and deletes on one page', async () => {
    const page = await newPage()
    const made = []
    for (let i = 0; i < 6; i++) made.push(await insertBlock(app.db, page.id, { type: 'text', content: { markdown: `b${i}` } }))
    await Promise.all([
      ...Array.from({ length: 8 }, (_, i) =>
        insertBlock(app.db, page.id, { type: 'text', content: { markdown: `n${i}` }, position: i % 3 }),
      ),
      updateBlock(app.db, 'acct_a', made[0]!.id, { position: 4 }),
      updateBlock(app.db, 'acct_a', made[5]!.id, { position: 0 }),
      deleteBlock(app.db, 'acct_a', made[2]!.id),
      deleteBlock(app.db, 'acct_a', made[3]!.id),
    ])
    const list = await positions(page.id)
    expect(list.map(([p]) => p)).toEqual([...Array(12).keys()])
  })

  it('refuses content that does not match the type, a type change without content, and changes nothing', async () => {
    const page = await newPage()
    const block = await insertBlock(app.db, page.id, { type: 'text', content: { markdown: 'keep' } })
    await expect(insertBlock(app.db, page.id, { type: 'testimonial', content: { quote: 'q' } })).rejects.toSatisfy(
      coded('invalid_block_content', 400),
    )
    await expect(updateBlock(app.db, 'acct_a', block.id, { content: { heading: 'x' } })).rejects.toSatisfy(coded('invalid_block_content'))
    await expect(updateBlock(app.db, 'acct_a', block.id, { type: 'hero' })).rejects.toSatisfy(coded('invalid_block_content'))
    expect((await getAccountBlock(app.db, 'acct_a', block.id))?.content).toEqual({ markdown: 'keep' })
    const hero = await updateBlock(app.db, 'acct_a', block.id, { type: 'hero', content: { heading: 'Hi' } })
    expect(hero).toMatchObject({ type: 'hero', content: { heading: 'Hi' }, position: 0 })
    expect(await getAccountBlock(app.db, 'acct_b', block.id)).toBeUndefined()
    expect(await updateBlock(app.db, 'acct_b', block.id, { content: { heading: 'Stolen' } })).toBeUndefined()
  })
})

describe('pages', () => {
  it('keeps a path unique per site and locale, and locales to those of the site', async () => {
    const site = await createAccountSite(app.db, 'acct_a', { name: 'Paths', default_locale: 'de', locales: ['de', 'en'] })
    const home = await createPage(app.db, site, { path: '/', title: 'Start' })
    expect(home.locale).toBe('de')
    await createPage(app.db, site, { path: '/', locale: 'en', title: 'Home' })
    await expect(createPage(app.db, site, { path: '/', title: 'Again' })).rejects.toSatisfy(coded('page_path_taken', 409))
    await expect(createPage(app.db, site, { path: '/x', locale: 'fr', title: 'Non' })).rejects.toSatisfy(coded('locale_not_on_site'))
    const about = await createPage(app.db, site, { path: '/about', title: 'Über' })
    await expect(updatePage(app.db, 'acct_a', about.id, { path: '/' })).rejects.toSatisfy(coded('page_path_taken'))
    expect(await updatePage(app.db, 'acct_b', about.id, { title: 'x' })).toBeUndefined()
    await expect(updateAccountSite(app.db, 'acct_a', site.id, { locales: ['de'] })).rejects.toSatisfy(coded('locale_in_use'))
    await expect(updateAccountSite(app.db, 'acct_a', site.id, { locales: ['en'] })).rejects.toSatisfy(coded('invalid_locales'))
  })
})

describe('domains', () => {
  it('normalises hostnames and refuses IPs, bad names and the service own hostnames', () => {
    expect(parseHostname(' WWW.Example.COM. ', own)).toBe('www.example.com')
    expect(parseHostname('bücher.example', own)).toBe('xn--bcher-kva.example')
    for (const bad of [
      '192.0.2.1',
      '[::1]',
      '::1',
      'localhost',
      'intranet',
      'a..example',
      '-a.example',
      'a_b.example',
      'example.com:8080',
      '*.example.com',
      'x'.repeat(64) + '.example',
      'platform.test',
      'app.platform.test',
      '1.2.3.4.5',
    ]) {
      expect(coded('invalid_hostname', 400)(thrown(() => parseHostname(bad, own))), bad).toBe(true)
    }
  })

  it('verifies through the TXT challenge and makes a hostname active on one site only', async () => {
    const resolver = dnsResolver(dns.address)
    const first = await createAccountSite(app.db, 'acct_a', { name: 'First', assistant: { enabled: true } })
    const second = await createAccountSite(app.db, 'acct_b', { name: 'Second' })
    const mine = await addDomain(app.db, first.id, 'shop.example')
    const theirs = await addDomain(app.db, second.id, 'shop.example')
    expect(mine).toMatchObject({ status: 'pending', primary: true })
    await expect(addDomain(app.db, first.id, 'shop.example')).rejects.toSatisfy(coded('hostname_taken', 409))

    expect(await verifyDomain(app.db, resolver, mine.id)).toMatchObject({ status: 'failed' })
    expect(await findSiteByHostname(app.db, 'shop.example')).toBeUndefined()
    dns.setTxt('_wps-challenge.shop.example', ['unrelated', mine.verification_value])
    expect(await verifyDomain(app.db, resolver, mine.id)).toMatchObject({ status: 'active' })
    expect((await findSiteByHostname(app.db, 'SHOP.example'))?.id).toBe(first.id)
    expect(await assistantEnabledOn(app.db, 'shop.example')).toBe(true)
    expect((await getAccountSite(app.db, 'acct_a', first.id))?.domain).toBe('shop.example')

    // The other site's claim cannot win, even with the right record, while the hostname is active here.
    dns.setTxt('_wps-challenge.shop.example', [theirs.verification_value])
    expect(await verifyDomain(app.db, resolver, theirs.id)).toMatchObject({ status: 'failed' })
    const third = await createSite(app.db, { name: 'T', accountId: 'acct_b' })
    await expect(addDomain(app.db, third.id, 'shop.example')).rejects.toSatisfy(coded('hostname_taken'))
    await expect(createSite(app.db, { name: 'Dup', hostname: 'shop.example' })).rejects.toSatisfy(coded('hostname_taken'))
    expect(await getAccountDomain(app.db, 'acct_b', mine.id)).toBeUndefined()
  })

  it('moves the primary flag, and hands it on when the primary goes', async () => {
    const site = await createAccountSite(app.db, 'acct_a', { name: 'Flags' })
    const a = await addDomain(app.db, site.id, 'a.flags.example')
    const b = await addDomain(app.db, site.id, 'b.flags.example')
    expect(b.primary).toBe(false)
    const c = await addDomain(app.db, site.id, 'c.flags.example', true)
    expect(c.primary).toBe(true)
    expect((await getAccountDomain(app.db, 'acct_a', a.id))?.primary).toBe(false)
    await deleteDomain(app.db, c)
    expect((await getAccountDomain(app.db, 'acct_a', a.id))?.primary).toBe(true)
  })

  it('lets a site created with the assistant answer on its domain once active, unless taken offline', async () => {
    const site = await createAccountSite(app.db, 'acct_a', { name: 'Draft', assistant: { enabled: true } })
    const domain = await addDomain(app.db, site.id, 'draft.example')
    expect(await assistantEnabledOn(app.db, 'draft.example')).toBe(false)
    dns.setTxt('_wps-challenge.draft.example', [domain.verification_value])
    await verifyDomain(app.db, dnsResolver(dns.address), domain.id)
    expect(await assistantEnabledOn(app.db, 'draft.example')).toBe(true)
    await app.db.updateTable('sites').set({ status: 'offline' }).where('id', '=', site.id).execute()
    expect(await assistantEnabledOn(app.db, 'draft.example')).toBe(false)
  })
})

describe('builds', () => {
  it('never runs two builds of one site at once, goes live on success and rolls back', async () => {
    const site = await createAccountSite(app.db, 'acct_a', { name: 'Builds' })
    const results = await Promise.all([queueBuild(app.db, site.id), queueBuild(app.db, site.id), queueBuild(app.db, site.id)])
    expect(new Set(results.map((r) => r.build.id)).size).toBe(1)
    expect(results.filter((r) => r.created)).toHaveLength(1)
    const first = results[0]!.build
    const jobs = await app.db.selectFrom('jobs').select('payload').where('name', '=', 'site.build').execute()
    expect(jobs.map((j) => j.payload)).toContainEqual({ build_id: first.id })
    await expect(updateAccountSite(app.db, 'acct_a', site.id, { status: 'live' })).rejects.toSatisfy(coded('site_not_built'))

    await startBuild(app.db, first.id)
    await finishBuild(app.db, first.id, { status: 'succeeded', pages: 3 })
    const live = await getAccountSite(app.db, 'acct_a', site.id)
    expect(live).toMatchObject({ status: 'live', live_build_id: first.id })
    expect(live?.published_at).toBeInstanceOf(Date)

    const second = (await queueBuild(app.db, site.id)).build
    expect(second.id).not.toBe(first.id)
    await finishBuild(app.db, second.id, { status: 'failed', error: 'boom' })
    await expect(rollbackTo(app.db, site.id, second.id)).rejects.toSatisfy(coded('build_not_rollbackable'))
    const third = (await queueBuild(app.db, site.id)).build
    await finishBuild(app.db, third.id, { status: 'succeeded', pages: 4 })
    await rollbackTo(app.db, site.id, first.id)
    expect((await getAccountSite(app.db, 'acct_a', site.id))?.live_build_id).toBe(first.id)

    // A live site goes with its builds in one delete, the live pointer included.
    expect(await deleteAccountSite(app.db, 'acct_b', site.id)).toBe(false)
    expect(await deleteAccountSite(app.db, 'acct_a', site.id)).toBe(true)
    expect(await app.db.selectFrom('builds').select('id').where('site_id', '=', site.id).execute()).toEqual([])
  })
})
