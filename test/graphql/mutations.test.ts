import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { clientFor, listeningApp, makeAccount, siteWithContent } from './helpers.ts'

const { app, endpoint, origin } = await listeningApp()

const SITE_FIELDS = 'id name subdomain status defaultLocale locales etag assistant { enabled persona bookingUrl lead handoff }'

async function session(plan: 'pro' | 'max' = 'pro', scopes?: readonly string[]) {
  const owner = await makeAccount(app, plan, scopes)
  const client = clientFor(endpoint, owner)
  const run = (query: string, variables?: Record<string, unknown>) => client.rawRequest<any>(query, variables)
  return { owner, run }
}

const sitesOf = (accountId: string) => app.db.selectFrom('sites').selectAll().where('account_id', '=', accountId).execute()

describe('GraphQL mutations: the writes of /v1, with its validation', () => {
  it('creates, changes and deletes a site, with ifMatch taking the ETag REST hands out', async () => {
    const { owner, run } = await session()
    const created = await run(`mutation New($input: CreateSiteInput!) { createSite(input: $input) { ${SITE_FIELDS} } }`, {
      input: {
        name: 'Bäckerei Sonne',
        defaultLocale: 'de',
        locales: ['de', 'en'],
        assistant: { persona: 'Sonja', bookingUrl: 'https://book.example/sonne' },
      },
    })
    expect(created.errors).toBeUndefined()
    const site = created.data.createSite
    expect(site).toMatchObject({
      name: 'Bäckerei Sonne',
      status: 'draft',
      defaultLocale: 'de',
      locales: ['de', 'en'],
      assistant: { persona: 'Sonja', bookingUrl: 'https://book.example/sonne' },
    })
    expect(site.subdomain).toMatch(/^backerei-sonne\./)

    const rest = await fetch(`${origin}/v1/sites/${site.id}`, { headers: owner.headers })
    expect(rest.headers.get('etag')).toBe(site.etag)
    const update = `mutation Change($input: UpdateSiteInput!) { updateSite(input: $input) { ${SITE_FIELDS} } }`
    const changed = await run(update, {
      input: { id: site.id, ifMatch: rest.headers.get('etag'), name: 'Sonne', subdomain: 'sonne', assistant: { enabled: true } },
    })
    expect(changed.errors).toBeUndefined()
    expect(changed.data.updateSite).toMatchObject({ name: 'Sonne', assistant: { enabled: true, persona: 'Sonja' } })
    expect(changed.data.updateSite.subdomain).toMatch(/^sonne\./)

    const stale = await run(update, { input: { id: site.id, ifMatch: site.etag, name: 'Overwritten' } })
    expect(stale.data).toEqual({ updateSite: null })
    expect(stale.errors?.[0]).toMatchObject({
      path: ['updateSite'],
      extensions: { code: 'PRECONDITION_FAILED', reason: 'precondition_failed' },
    })
    expect((await sitesOf(owner.accountId))[0]?.name).toBe('Sonne')

    const staleDelete = await run('mutation D($input: DeleteSiteInput!) { deleteSite(input: $input) }', {
      input: { id: site.id, ifMatch: site.etag },
    })
    expect(staleDelete.errors?.[0]?.extensions?.['code']).toBe('PRECONDITION_FAILED')
    const deleted = await run('mutation D($input: DeleteSiteInput!) { deleteSite(input: $input) }', {
      input: { id: site.id, ifMatch: changed.data.updateSite.etag },
    })
    expect(deleted.data).toEqual({ deleteSite: site.id })
    expect(await sitesOf(owner.accountId)).toEqual([])
  })

  it('sets the menu with sub-items, as often as asked (the query compiled after its first use reads the input the same)', async () => {
    const { owner, run } = await session()
    const { site } = await siteWithContent(app, owner.accountId, 1, 0, 'Menu')
    const update =
      'mutation Menu($input: UpdateSiteInput!) { updateSite(input: $input) { navigation { page url label labels { de } hidden children { page url label } } } }'
    const navigation = [
      { page: '/', labels: { de: 'Start' } },
      { url: 'https://shop.example/', label: 'Shop', children: [{ url: 'mailto:hi@example.com', label: 'Write to us' }] },
    ]
    for (let round = 0; round < 3; round++) {
      const set = await run(update, { input: { id: site.id, navigation } })
      expect(set.errors).toBeUndefined()
      expect(set.data.updateSite.navigation).toEqual([
        { page: '/', url: null, label: null, labels: { de: 'Start' }, hidden: null, children: null },
        {
          page: null,
          url: 'https://shop.example/',
          label: 'Shop',
          labels: null,
          hidden: null,
          children: [{ page: null, url: 'mailto:hi@example.com', label: 'Write to us' }],
        },
      ])
    }
    // Two levels deep at most: a third is refused by the schema, the menu kept.
    const deeper = run(update, {
      input: {
        id: site.id,
        navigation: [{ url: 'https://a.example/', label: 'A', children: [{ url: 'https://b.example/', label: 'B', children: [] }] }],
      },
    })
    await expect(deeper).rejects.toMatchObject({ response: { status: 400, errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] } })
    expect((await run('query S($id: ID!) { site(id: $id) { navigation { label } } }', { id: site.id })).data.site.navigation).toHaveLength(
      2,
    )
  })

  it('refuses what REST refuses, naming the field in GraphQL terms, and stores nothing', async () => {
    const { owner, run } = await session()
    const create = `mutation New($input: CreateSiteInput!) { createSite(input: $input) { id } }`
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ name: '' }, { field: 'name', reason: 'validation_failed', message: "The field 'name' must not be empty" }],
      [{ name: 'x'.repeat(201) }, { field: 'name', message: "The field 'name' must be at most 200 characters long" }],
      [{ name: 'Locales', defaultLocale: 'fr', locales: ['de', 'en'] }, { reason: 'invalid_locales' }],
      [
        { name: 'Booking', assistant: { bookingUrl: 'javascript:alert(1)' } },
        { field: 'assistant.bookingUrl', message: "The field 'assistant.bookingUrl' has an unsupported value" },
      ],
    ]
    for (const [input, expected] of cases) {
      const { data, errors } = await run(create, { input })
      expect(data).toEqual({ createSite: null })
      const { message, ...extensions } = expected
      expect(errors?.[0]).toMatchObject({ message: message ?? expect.any(String), extensions: { code: 'BAD_USER_INPUT', ...extensions } })
    }
    expect(await sitesOf(owner.accountId)).toEqual([])
    // REST says the same of the same body, in its own field names.
    const rest = await fetch(`${origin}/v1/sites`, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Booking', assistant: { booking_url: 'javascript:alert(1)' } }),
    })
    expect(((await rest.json()) as { detail: string }).detail).toBe("The field 'assistant.booking_url' has an unsupported value")

    const { site } = await siteWithContent(app, owner.accountId, 0, 0)
    const empty = await run('mutation { updateSite(input: { id: "' + site.id + '" }) { id } }')
    expect(empty.errors?.[0]).toMatchObject({ message: 'The input is not in the expected form', extensions: { code: 'BAD_USER_INPUT' } })
    const nulled = await run('mutation { updateSite(input: { id: "' + site.id + '", name: null }) { id } }')
    expect(nulled.errors?.[0]).toMatchObject({
      message: "The field 'name' must be a string",
      extensions: { code: 'BAD_USER_INPUT', field: 'name' },
    })
  })

  it('manages pages and blocks: paths unique per locale, content checked by type, positions kept dense', async () => {
    const { owner, run } = await session()
    const { site } = await siteWithContent(app, owner.accountId, 0, 0)
    const page = (
      await run('mutation P($input: CreatePageInput!) { createPage(input: $input) { id path locale title description etag } }', {
        input: { siteId: site.id, path: '/about', title: 'About us' },
      })
    ).data.createPage
    expect(page).toMatchObject({ path: '/about', locale: 'en', title: 'About us', description: '' })
    const taken = await run('mutation P($input: CreatePageInput!) { createPage(input: $input) { id } }', {
      input: { siteId: site.id, path: '/about', title: 'Again' },
    })
    expect(taken.errors?.[0]).toMatchObject({
      message: 'A page with path /about in locale en already exists on this site',
      extensions: { code: 'BAD_USER_INPUT', reason: 'page_path_taken' },
    })
    const badPath = await run('mutation P($input: CreatePageInput!) { createPage(input: $input) { id } }', {
      input: { siteId: site.id, path: 'About Us', title: 'x' },
    })
    expect(badPath.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'path' })

    const add = 'mutation B($input: AddBlockInput!) { addBlock(input: $input) { id type position content etag } }'
    const hero = (await run(add, { input: { pageId: page.id, type: 'hero', content: { heading: 'Fresh bread daily' } } })).data.addBlock
    const faq = (
      await run(add, {
        input: { pageId: page.id, type: 'faq', content: { items: [{ question: 'Open Sundays?', answer: 'Yes' }] }, position: 0 },
      })
    ).data.addBlock
    expect([hero.position, faq.position]).toEqual([0, 0])
    const invalid = await run(add, { input: { pageId: page.id, type: 'hero', content: { subheading: 'no heading' } } })
    expect(invalid.errors?.[0]).toMatchObject({
      message: "The field 'content.heading' is required for a block of type hero",
      extensions: { code: 'BAD_USER_INPUT', reason: 'invalid_block_content', field: 'content.heading' },
    })
    const negative = await run(add, { input: { pageId: page.id, type: 'text', content: { markdown: 'x' }, position: -1 } })
    expect(negative.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'position' })
    const beyond = await run(add, { input: { pageId: page.id, type: 'text', content: { markdown: 'x' }, position: 9 } })
    expect(beyond.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'position_out_of_range' })

    const moved = await run('mutation M($input: UpdateBlockInput!) { updateBlock(input: $input) { id position } }', {
      input: { id: faq.id, position: 1, ifMatch: faq.etag },
    })
    expect(moved.data.updateBlock).toEqual({ id: faq.id, position: 1 })
    const listed = await run('query P($id: ID!) { page(id: $id) { blocks { nodes { id position } } } }', { id: page.id })
    expect(listed.data.page.blocks.nodes).toEqual([
      { id: hero.id, position: 0 },
      { id: faq.id, position: 1 },
    ])
    const retyped = await run('mutation M($input: UpdateBlockInput!) { updateBlock(input: $input) { type content } }', {
      input: { id: hero.id, type: 'cta', content: { heading: 'Order', label: 'Go', href: '/order' } },
    })
    expect(retyped.data.updateBlock).toEqual({ type: 'cta', content: { heading: 'Order', label: 'Go', href: '/order' } })

    expect((await run('mutation { deleteBlock(input: { id: "' + hero.id + '" }) }')).data).toEqual({ deleteBlock: hero.id })
    const renamed = await run('mutation U($input: UpdatePageInput!) { updatePage(input: $input) { title } }', {
      input: { id: page.id, ifMatch: page.etag, title: 'About' },
    })
    expect(renamed.data.updatePage).toEqual({ title: 'About' })
    expect((await run('mutation { deletePage(input: { id: "' + page.id + '" }) }')).data).toEqual({ deletePage: page.id })
    expect(await app.db.selectFrom('blocks').select('id').where('page_id', '=', page.id).execute()).toEqual([])
  })

  it('adds, verifies and removes domains, rebuilds a site and refuses a rollback to a build that never succeeded', async () => {
    const { owner, run } = await session()
    const { site } = await siteWithContent(app, owner.accountId, 1, 1)
    const added = await run(
      'mutation A($input: AddDomainInput!) { addDomain(input: $input) { id hostname status primary verification { type name value } etag } }',
      { input: { siteId: site.id, hostname: 'Sonne-Baeckerei.example' } },
    )
    expect(added.errors).toBeUndefined()
    expect(added.data.addDomain).toMatchObject({
      hostname: 'sonne-baeckerei.example',
      status: 'pending',
      primary: true,
      verification: { type: 'TXT', name: '_wps-challenge.sonne-baeckerei.example' },
    })
    const own = await run('mutation A($input: AddDomainInput!) { addDomain(input: $input) { id } }', {
      input: { siteId: site.id, hostname: 'localhost' },
    })
    expect(own.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'invalid_hostname' })

    const verifying = await run('mutation V($input: VerifyDomainInput!) { verifyDomain(input: $input) { id status } }', {
      input: { id: added.data.addDomain.id },
    })
    expect(verifying.data.verifyDomain).toEqual({ id: added.data.addDomain.id, status: 'pending' })
    const queued = await app.db
      .selectFrom('jobs')
      .select('name')
      .where(sql<string>`payload->>'domain_id'`, '=', added.data.addDomain.id)
      .execute()
    expect(queued.map((j) => j.name)).toContain('domain.verify')

    const build = (
      await run('mutation R($input: RebuildSiteInput!) { rebuildSite(input: $input) { id siteId status } }', { input: { id: site.id } })
    ).data.rebuildSite
    expect(build).toMatchObject({ siteId: site.id, status: 'queued' })
    await app.db.updateTable('builds').set({ status: 'failed', error: 'test' }).where('id', '=', build.id).execute()
    const rollback = await run('mutation R($input: RollbackSiteInput!) { rollbackSite(input: $input) { id } }', {
      input: { id: site.id, buildId: build.id },
    })
    expect(rollback.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'build_not_rollbackable' })
    const unknownBuild = await run('mutation R($input: RollbackSiteInput!) { rollbackSite(input: $input) { id } }', {
      input: { id: site.id, buildId: 'bld_doesnotexist00' },
    })
    expect(unknownBuild.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })

    const stale = await run('mutation X($input: DeleteDomainInput!) { deleteDomain(input: $input) }', {
      input: { id: added.data.addDomain.id, ifMatch: '"stale"' },
    })
    expect(stale.errors?.[0]?.extensions).toMatchObject({ code: 'PRECONDITION_FAILED' })
    const removed = await run('mutation X($input: DeleteDomainInput!) { deleteDomain(input: $input) }', {
      input: { id: added.data.addDomain.id },
    })
    expect(removed.data).toEqual({ deleteDomain: added.data.addDomain.id })
  })

  it('deletes a lead with manage:leads', async () => {
    const { owner, run } = await session()
    const { site } = await siteWithContent(app, owner.accountId, 0, 0)
    const leadId = await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      source: 'contact_form',
      email: 'ada@example.com',
      consent: { version: '1', locale: 'en', digest: 'd'.repeat(64), acceptedAt: new Date() },
    })
    const { data } = await run('mutation L($input: DeleteLeadInput!) { deleteLead(input: $input) }', { input: { id: leadId } })
    expect(data).toEqual({ deleteLead: leadId })
    expect(await app.db.selectFrom('leads').select('id').where('id', '=', leadId!).execute()).toEqual([])
  })

  it("answers NOT_FOUND for another account's resources and changes nothing of them", async () => {
    const { run } = await session()
    const stranger = await makeAccount(app, 'pro')
    const { site, pageIds } = await siteWithContent(app, stranger.accountId, 1, 1)
    const blockId = (await app.db.selectFrom('blocks').select('id').where('page_id', '=', pageIds[0]!).executeTakeFirstOrThrow()).id
    const attempts = [
      ['updateSite', `updateSite(input: { id: "${site.id}", name: "Taken over" }) { id }`],
      ['deleteSite', `deleteSite(input: { id: "${site.id}" })`],
      ['createPage', `createPage(input: { siteId: "${site.id}", path: "/x", title: "x" }) { id }`],
      ['deletePage', `deletePage(input: { id: "${pageIds[0]}" })`],
      ['addBlock', `addBlock(input: { pageId: "${pageIds[0]}", type: text, content: { markdown: "x" } }) { id }`],
      ['updateBlock', `updateBlock(input: { id: "${blockId}", content: { markdown: "x" } }) { id }`],
      ['rebuildSite', `rebuildSite(input: { id: "${site.id}" }) { id }`],
      ['addDomain', `addDomain(input: { siteId: "${site.id}", hostname: "stolen.example" }) { id }`],
    ]
    for (const [name, selection] of attempts) {
      const { data, errors } = await run(`mutation { ${selection} }`)
      expect(data).toEqual({ [name!]: null })
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })
    }
    expect((await sitesOf(stranger.accountId)).map((s) => s.name)).toEqual(['Bakery'])
    expect(await app.db.selectFrom('pages').select('id').where('site_id', '=', site.id).execute()).toHaveLength(1)
  })

  it('refuses one site more than the plan allows with FORBIDDEN reason plan_limit, storing nothing', async () => {
    const { owner, run } = await session('pro')
    const allowed = (await app.db.selectFrom('sites').select('id').where('account_id', '=', owner.accountId).execute()).length
    for (let i = allowed; i < 10; i++) await createAccountSite(app.db, owner.accountId, { name: `Site ${i}` })
    const { data, errors } = await run('mutation { createSite(input: { name: "Eleventh" }) { id } }')
    expect(data).toEqual({ createSite: null })
    expect(errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN', reason: 'plan_limit' } })
    expect(errors?.[0]?.message).toContain(owner.accountId)
    expect(await sitesOf(owner.accountId)).toHaveLength(10)
  })
})
