import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { addDomain } from '../../src/domain/sites/domains.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { queueBuild } from '../../src/domain/sites/builds.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { directQueryOf, runDirect } from '../../src/infra/prepared.ts'
import { addMember, changeRole } from '../../src/domain/accounts/members.ts'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { person } from '../teams/helpers.ts'
import { afterAuditFlush, clientFor, listeningApp, makeAccount, post, siteWithContent } from './helpers.ts'

const { app, endpoint, origin } = await listeningApp()

const SITE = /* GraphQL */ `
  query Site($id: ID!) {
    site(id: $id) {
      id name status subdomain defaultLocale locales previewUrl url createdAt etag
      assistant { enabled persona bookingUrl lead handoff }
      pages(first: 10) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { cursor node { id siteId path locale title etag blocks { totalCount nodes { id pageId type position content etag } } } }
      }
      domains { hostname status primary verification { type name value } }
      builds(first: 5) { id status }
    }
  }`

describe('GraphQL reads: the same model and ids as /v1', () => {
  it('answers a site with its pages, blocks, domains and builds in one query, field for field what REST answers', async () => {
    const owner = await makeAccount(app, 'pro')
    const { site, pageIds } = await siteWithContent(app, owner.accountId, 3, 2)
    await addDomain(app.db, site.id, 'bakery.example')
    const client = clientFor(endpoint, owner)

    const { data, errors, extensions } = await client.rawRequest<any>(SITE, { id: site.id })
    expect(errors).toBeUndefined()
    const rest = await fetch(`${origin}/v1/sites/${site.id}`, { headers: owner.headers })
    const restSite = (await rest.json()) as Record<string, any>
    expect(data.site).toMatchObject({
      id: restSite['id'],
      name: restSite['name'],
      status: 'draft',
      subdomain: restSite['subdomain'],
      defaultLocale: restSite['default_locale'],
      locales: restSite['locales'],
      previewUrl: restSite['preview_url'],
      url: restSite['url'],
      createdAt: restSite['created_at'],
      assistant: {
        enabled: restSite['assistant'].enabled,
        persona: restSite['assistant'].persona,
        bookingUrl: restSite['assistant'].booking_url,
      },
      etag: rest.headers.get('etag'),
    })
    expect(data.site.pages.totalCount).toBe(3)
    expect(data.site.pages.pageInfo.hasNextPage).toBe(false)
    expect(data.site.pages.edges.map((e: any) => e.node.path)).toEqual(['/', '/page-1', '/page-2'])
    expect(new Set(data.site.pages.edges.map((e: any) => e.node.id))).toEqual(new Set(pageIds))
    const firstPage = data.site.pages.edges[0].node
    expect(firstPage.blocks.nodes).toEqual([
      expect.objectContaining({ type: 'text', position: 0, pageId: firstPage.id, content: { markdown: 'Block 0 of page 0' } }),
      expect.objectContaining({ type: 'text', position: 1, content: { markdown: 'Block 1 of page 0' } }),
    ])
    const restBlock = await fetch(`${origin}/v1/blocks/${firstPage.blocks.nodes[0].id}`, { headers: owner.headers })
    expect(firstPage.blocks.nodes[0].etag).toBe(restBlock.headers.get('etag'))
    const restPage = await fetch(`${origin}/v1/pages/${firstPage.id}`, { headers: owner.headers })
    expect(firstPage.etag).toBe(restPage.headers.get('etag'))
    expect(data.site.domains).toEqual([
      { hostname: 'bakery.example', status: 'pending', primary: true, verification: expect.objectContaining({ type: 'TXT' }) },
    ])
    expect(data.site.builds).toEqual([])
    expect(extensions).toEqual({ cost: { requested: expect.any(Number), limit: 1000 } })

    const { build } = await queueBuild(app.db, site.id)
    const builds = await client.rawRequest<any>(`query B($id: ID!) { site(id: $id) { builds { id } } }`, { id: site.id })
    expect(builds.data.site.builds).toEqual([{ id: build.id }])
  })

  it('pages through sites with Relay cursors, oldest first', async () => {
    const owner = await makeAccount(app, 'max')
    for (let i = 0; i < 5; i++) await siteWithContent(app, owner.accountId, 0, 0, `Site ${i}`)
    const client = clientFor(endpoint, owner)
    const query = `query Sites($after: String) { sites(first: 2, after: $after) { totalCount pageInfo { hasNextPage hasPreviousPage endCursor } nodes { name } } }`
    const names: string[] = []
    let after: string | null = null
    for (;;) {
      const { data }: { data: any } = await client.rawRequest<any>(query, { after })
      expect(data.sites.totalCount).toBe(5)
      names.push(...data.sites.nodes.map((s: any) => s.name))
      expect(data.sites.pageInfo.hasPreviousPage).toBe(after !== null)
      if (!data.sites.pageInfo.hasNextPage) break
      after = data.sites.pageInfo.endCursor
    }
    expect(names).toEqual(['Site 0', 'Site 1', 'Site 2', 'Site 3', 'Site 4'])

    const refused = await client.rawRequest<any>(`{ sites(first: 101) { totalCount } }`)
    expect(refused.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'first' } })
    const notOurs = await client.rawRequest<any>(`{ sites(after: "bm9wZQ") { totalCount } }`)
    expect(notOurs.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'after' } })
  })

  it('reads the viewer, one page, one block, leads, webhook endpoints and the audit log', async () => {
    const owner = await makeAccount(app, 'pro')
    const { site, pageIds } = await siteWithContent(app, owner.accountId, 1, 1)
    const leadId = await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      source: 'contact_form',
      email: 'ada@example.com',
      name: 'Ada',
      consent: { version: '1', locale: 'en', digest: 'd'.repeat(64), acceptedAt: new Date() },
    })
    await createEndpoint(app.db, app.keyring, owner.accountId, { url: 'https://hooks.example/in', eventTypes: ['lead.received'] })
    const client = clientFor(endpoint, owner)

    const { data, errors } = await client.rawRequest<any>(
      `query Everything($page: ID!) {
      viewer { id plan apiAccess quota { requestsPerHour windowSeconds override } usage { used remaining } }
      page(id: $page) { path blocks { nodes { id type } } }
      leads(first: 5) { totalCount nodes { id email name source consent { locale } } }
      webhookEndpoints { totalCount nodes { url eventTypes enabled } }
    }`,
      { page: pageIds[0] },
    )
    expect(errors).toBeUndefined()
    expect(data.viewer).toMatchObject({
      id: owner.accountId,
      plan: 'pro',
      apiAccess: 'read_write',
      quota: { requestsPerHour: 1000, windowSeconds: 3600, override: false },
    })
    expect(data.viewer.usage.used + data.viewer.usage.remaining).toBe(1000)
    expect(data.page.path).toBe('/')
    expect(data.leads).toMatchObject({
      totalCount: 1,
      nodes: [{ id: leadId, email: 'ada@example.com', name: 'Ada', source: 'contact_form', consent: { locale: 'en' } }],
    })
    expect(data.webhookEndpoints).toMatchObject({
      totalCount: 1,
      nodes: [{ url: 'https://hooks.example/in', eventTypes: ['lead.received'], enabled: true }],
    })

    const block = await client.rawRequest<any>(`query B($id: ID!) { block(id: $id) { id type content } }`, {
      id: data.page.blocks.nodes[0].id,
    })
    expect(block.data.block).toMatchObject({ type: 'text', content: { markdown: 'Block 0 of page 0' } })

    await afterAuditFlush()
    const audit = await client.rawRequest<any>(`{ auditLog(first: 10) { nodes { operation method path status tokenId } } }`)
    expect(audit.data.auditLog.nodes).toEqual(
      expect.arrayContaining([
        { operation: 'graphql.Everything', method: 'POST', path: '/v1/graphql', status: 200, tokenId: owner.tokenId },
        { operation: 'graphql.B', method: 'POST', path: '/v1/graphql', status: 200, tokenId: owner.tokenId },
      ]),
    )
  })

  it("gives the viewer the email of the account's first owner, whoever made the account", async () => {
    const [first, second] = [await person(app, 'viewer-first@example.com'), await person(app, 'viewer-second@example.com')]
    await app.db.updateTable('accounts').set({ plan: 'pro' }).where('id', '=', first.accountId).execute()
    const { secret } = await createApiToken(app.db, { accountId: first.accountId, name: 'viewer', scopes: ['read:sites'] })
    const client = clientFor(endpoint, { headers: { authorization: `Bearer ${secret}` } })
    const email = async () => (await client.rawRequest<any>('{ viewer { email } }')).data.viewer.email
    expect(await email()).toBe('viewer-first@example.com')
    // The second person becomes an owner and the first steps down: the account is now the second's.
    await addMember(app.db, first.accountId, second.id, 'owner')
    expect(await email()).toBe('viewer-first@example.com')
    await changeRole(app.db, first.accountId, first.id, 'editor')
    expect(await email()).toBe('viewer-second@example.com')
    // An account nobody has signed in to has no email.
    expect((await clientFor(endpoint, await makeAccount(app, 'pro')).rawRequest<any>('{ viewer { email } }')).data.viewer.email).toBeNull()
  })

  it("answers NOT_FOUND for another account's ids, and for ids that cannot be ids, keeping the other fields' data", async () => {
    const owner = await makeAccount(app, 'pro')
    const stranger = await makeAccount(app, 'pro')
    const { site, pageIds } = await siteWithContent(app, stranger.accountId, 1, 1)
    const client = clientFor(endpoint, owner)
    const { data, errors } = await client.rawRequest<any>(
      `query Q($site: ID!, $page: ID!, $odd: ID!) { viewer { id } site(id: $site) { name } page(id: $page) { path } odd: site(id: $odd) { name } }`,
      {
        site: site.id,
        page: pageIds[0],
        odd: "site_x'; select 1; --",
      },
    )
    expect(data).toEqual({ viewer: { id: owner.accountId }, site: null, page: null, odd: null })
    expect(errors?.map((e) => [e.path, e.extensions?.['code'], e.message]).sort()).toEqual([
      [['odd'], 'NOT_FOUND', 'Site not found'],
      [['page'], 'NOT_FOUND', 'Page not found'],
      [['site'], 'NOT_FOUND', 'Site not found'],
    ])
    expect(JSON.stringify(errors)).not.toMatch(/stack|sql|postgres|pglite/i)

    // A value the database cannot store is refused before anything runs, naming where it sits.
    const unstorable = await post(
      endpoint,
      { query: 'query Q($id: ID!) { site(id: $id) { name } }', variables: { id: 'site_\u0000' } },
      owner.headers,
    )
    expect(unstorable.status).toBe(200)
    expect(unstorable.body.errors).toEqual([
      { message: "The field 'variables.id' is not in the expected format", extensions: { code: 'BAD_REQUEST' } },
    ])
  })

  it('answers a field the database fails as INTERNAL_SERVER_ERROR, without the driver message, beside the data of the others', async () => {
    const broken = await listeningApp({ captureLogs: true })
    const owner = await makeAccount(broken.app, 'pro')
    await sql`drop table leads cascade`.execute(broken.app.db)
    const { data, errors } = await clientFor(broken.endpoint, owner).rawRequest<any>('{ viewer { plan } leads { totalCount } }')
    expect(data).toEqual({ viewer: { plan: 'pro' }, leads: null })
    expect(errors).toEqual([
      {
        message: 'An unexpected error occurred',
        path: ['leads'],
        locations: [{ line: 1, column: 19 }],
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      },
    ])
    // The log has the whole story.
    expect(broken.logs.some((line) => JSON.stringify(line).includes('leads') && line['level'] === 50)).toBe(true)
  })

  it('reads 50 sites with their pages and their blocks in a small fixed number of SQL statements', async () => {
    const statements = async (sites: number, pages: number, blocks: number) => {
      const owner = await makeAccount(app, 'max')
      for (let s = 0; s < sites; s++) await siteWithContent(app, owner.accountId, pages, blocks, `Site ${s}`)
      const query = `{ sites(first: 50) { totalCount nodes { id pages(first: 3) { totalCount nodes { path blocks(first: 3) { nodes { type content } } } } } } }`
      // Warm: the token is known, the query compiled.
      await post(endpoint, { query }, owner.headers)
      const counted = await countStatements(() => post(endpoint, { query }, owner.headers))
      expect(counted.result.status).toBe(200)
      const answer = counted.result.body
      expect(answer.errors).toBeUndefined()
      expect(answer.data.sites.nodes).toHaveLength(sites)
      for (const s of answer.data.sites.nodes) {
        expect(s.pages.nodes).toHaveLength(Math.min(pages, 3))
        for (const p of s.pages.nodes) expect(p.blocks.nodes).toHaveLength(Math.min(blocks, 3))
      }
      return counted.count
    }
    const few = await statements(2, 1, 1)
    const many = await statements(50, 3, 3)
    expect(many).toBe(few)
    // One for the sites, one for their pages, one for their blocks.
    expect(many).toBe(3)
  })
})

/**
 * Counts the SQL statements the app sends while `work` runs, at the driver: every query of the
 * Kysely instance goes through its connection's executeQuery, and a hot read on PostgreSQL
 * through the database's direct path.
 */
async function countStatements<T>(work: () => Promise<T>): Promise<{ result: T; count: number }> {
  const seen: string[] = []
  const executor = app.db.getExecutor()
  const provider = executor as unknown as {
    provideConnection<R>(consumer: (connection: { executeQuery: (query: { sql: string }) => Promise<unknown> }) => Promise<R>): Promise<R>
  }
  const original = provider.provideConnection.bind(provider)
  provider.provideConnection = (consumer) =>
    original((connection) => {
      const proxied = new Proxy(connection, {
        get(target, key, receiver) {
          if (key === 'executeQuery') return (query: { sql: string }) => (seen.push(query.sql), target.executeQuery(query))
          return Reflect.get(target, key, receiver)
        },
      })
      return consumer(proxied)
    })
  const direct = directQueryOf(app.db)
  if (direct) runDirect(app.db, (text, values) => (seen.push(text), direct(text, values)))
  try {
    const result = await work()
    // Only reads of the content count: other parts of the service (the job runner, batched audit
    // records, the quota tally) may run statements of their own meanwhile.
    const count = seen.filter(
      (text) => /^(select|with)\b/i.test(text.trim()) && /"?(sites|pages|blocks)"?\b/.test(text) && !/\bjobs\b/.test(text),
    ).length
    return { result, count }
  } finally {
    provider.provideConnection = original
    if (direct) runDirect(app.db, direct)
  }
}
