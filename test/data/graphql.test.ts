import { describe, expect, it } from 'vitest'
import { startLiveApp } from '../identity/helpers.ts'
import { bakerySite, buildSite } from '../sites/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { graphqlAs } from '../graphql/helpers.ts'
import { makeTeam, type TeamMember } from '../teams/helpers.ts'
import { httpClient } from './http.ts'

// Your data (DESIGN.md 19) on GraphQL, through the same domain functions as /v1: a page's history
// and its restore, a site's redirects, the account's export.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
const team = await makeTeam(app, 'pro')
const other = await makeTeam(app, 'pro')
const site = await bakerySite(app, { accountId: team.accountId, hostname: 'graphql-data.example' })
expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })
const rest = httpClient(base, team.owner.api.authorization)

const graphql = (member: Pick<TeamMember, 'api'>, query: string, variables: Record<string, unknown> = {}) =>
  graphqlAs(base, member, query, variables)

describe('page history on GraphQL', () => {
  it('lists a page’s revisions as /v1 does and restores one as a new change', async () => {
    const page = (await rest('GET', `/v1/sites/${site.id}/pages`)).json.data.find((p: { path: string }) => p.path === '/about')
    const before = page.title as string
    const changed = await graphql(team.editor, 'mutation Rename($input: UpdatePageInput!) { updatePage(input: $input) { title } }', {
      input: { id: page.id, title: 'A new title' },
    })
    expect(changed.data?.['updatePage']).toEqual({ title: 'A new title' })
    const HISTORY = `query History($id: ID!) { page(id: $id) { title revisions(first: 10) { totalCount nodes { id pageId operation userId title blocks } } } }`
    const history = (await graphql(team.owner, HISTORY, { id: page.id })).data?.['page']
    const listed = (await rest('GET', `/v1/pages/${page.id}/revisions`)).json.data as Array<{
      id: string
      title: string
      operation: string
    }>
    expect(history.revisions.totalCount).toBe(listed.length)
    expect(history.revisions.nodes.map((r: { id: string }) => r.id)).toEqual(listed.map((r) => r.id))
    expect(history.revisions.nodes[0]).toMatchObject({
      pageId: page.id,
      title: 'A new title',
      operation: 'graphql.Rename',
      userId: team.editor.userId,
    })
    const earlier = history.revisions.nodes.find((r: { title: string }) => r.title === before)
    expect(earlier).toBeTruthy()

    const RESTORE = 'mutation Restore($input: RestorePageRevisionInput!) { restorePageRevision(input: $input) { id title } }'
    const restored = await graphql(team.editor, RESTORE, { input: { pageId: page.id, revisionId: earlier.id } })
    expect(restored.data?.['restorePageRevision']).toEqual({ id: page.id, title: before })
    expect((await rest('GET', `/v1/pages/${page.id}`)).json.title).toBe(before)
    // A viewer may read the history, not restore it; another account sees neither.
    const viewer = await graphql(team.viewer, RESTORE, { input: { pageId: page.id, revisionId: earlier.id } })
    expect(viewer.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'role_required' })
    const stranger = await graphql(other.owner, RESTORE, { input: { pageId: page.id, revisionId: earlier.id } })
    expect(stranger.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })
    expect((await graphql(other.owner, HISTORY, { id: page.id })).errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })
    const unknown = await graphql(team.owner, RESTORE, { input: { pageId: page.id, revisionId: 'rev_nothing_here' } })
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('redirects on GraphQL', () => {
  it('adds, lists and removes a site’s redirects; a loop and a taken address are refused', async () => {
    const ADD = 'mutation Add($input: AddRedirectInput!) { addRedirect(input: $input) { id siteId from to status } }'
    const added = await graphql(team.editor, ADD, { input: { siteId: site.id, from: '/old-menu', to: '/about' } })
    expect(added.errors).toBeUndefined()
    expect(added.data?.['addRedirect']).toMatchObject({ siteId: site.id, from: '/old-menu', to: '/about', status: 301 })
    const id = added.data!['addRedirect'].id as string
    // The site's host answers it once published files have no page there.
    const listed = await graphql(team.viewer, `query { site(id: "${site.id}") { redirects { totalCount nodes { id from to status } } } }`)
    expect(listed.data?.['site'].redirects).toEqual({ totalCount: 1, nodes: [{ id, from: '/old-menu', to: '/about', status: 301 }] })
    expect((await rest('GET', `/v1/sites/${site.id}/redirects`)).json.data.map((r: { id: string }) => r.id)).toEqual([id])
    // Every site's redirects in one query (one statement for them all), each site its own.
    const second = await graphql(team.owner, 'mutation { createSite(input: {name: "Second"}) { id } }')
    const secondId = second.data!['createSite'].id as string
    const all = await graphql(team.owner, '{ sites { nodes { id redirects(first: 5) { totalCount nodes { from } } } } }')
    const bySite = Object.fromEntries(all.data!['sites'].nodes.map((n: { id: string; redirects: unknown }) => [n.id, n.redirects]))
    expect(bySite[site.id]).toEqual({ totalCount: 1, nodes: [{ from: '/old-menu' }] })
    expect(bySite[secondId]).toEqual({ totalCount: 0, nodes: [] })

    const loop = await graphql(team.editor, ADD, { input: { siteId: site.id, from: '/about', to: '/old-menu' } })
    expect(loop.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'redirect_loop' })
    const taken = await graphql(team.editor, ADD, { input: { siteId: site.id, from: '/old-menu', to: '/' } })
    expect(taken.errors?.[0]?.extensions).toMatchObject({ reason: 'redirect_from_taken' })
    const badPath = await graphql(team.editor, ADD, { input: { siteId: site.id, from: 'no-slash', to: '/', status: 307 } })
    expect(badPath.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT')
    const strange = await graphql(other.owner, ADD, { input: { siteId: site.id, from: '/x', to: '/' } })
    expect(strange.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })

    const DELETE = 'mutation Remove($input: DeleteRedirectInput!) { deleteRedirect(input: $input) }'
    expect((await graphql(other.owner, DELETE, { input: { siteId: site.id, id } })).errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
    })
    expect((await graphql(team.editor, DELETE, { input: { siteId: site.id, id } })).data).toEqual({ deleteRedirect: id })
    expect((await graphql(team.editor, DELETE, { input: { siteId: site.id, id } })).errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
    })
  })
})

describe('the export on GraphQL', () => {
  it('is asked for by an owner and read until ready, with the link /v1 gives', async () => {
    const asked = await graphql(team.owner, 'mutation { requestAccountExport { id status downloadUrl } }')
    expect(asked.data?.['requestAccountExport']).toEqual({ id: expect.stringMatching(/^exp_/), status: 'pending', downloadUrl: null })
    const id = asked.data!['requestAccountExport'].id as string
    const READ = `query Read($id: ID!) { accountExport(id: $id) { id status sizeBytes downloadUrl expiresAt } }`
    await eventually(async () => {
      expect((await graphql(team.owner, READ, { id })).data?.['accountExport'].status).toBe('ready')
    }, 60_000)
    const ready = (await graphql(team.owner, READ, { id })).data?.['accountExport']
    const viaRest = (await rest('GET', `/v1/account/exports/${id}`)).json
    expect(ready).toEqual({
      id,
      status: 'ready',
      sizeBytes: viaRest.size_bytes,
      // Sealed afresh on each read (its nonce differs), for the same export, account and expiry.
      downloadUrl: expect.stringMatching(new RegExp(`^${base}/app/exports/${id}/download\\?t=`)),
      expiresAt: viaRest.expires_at,
    })
    expect(viaRest.download_url.split('?')[0]).toBe(ready.downloadUrl.split('?')[0])
    const zip = await fetch(ready.downloadUrl, { headers: { cookie: team.owner.cookie } })
    expect(zip.headers.get('content-type')).toBe('application/zip')

    expect((await graphql(team.editor, 'mutation { requestAccountExport { id } }')).errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'role_required',
    })
    expect((await graphql(other.owner, READ, { id })).errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })
  })
})
