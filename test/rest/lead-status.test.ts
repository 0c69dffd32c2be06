import createClient from 'openapi-fetch'
import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { clientFor, post } from '../graphql/helpers.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect } from '../mcp/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'
import type { paths } from './generated/v1.ts'
import { afterAuditFlush } from './helpers.ts'

// One domain function sets a lead's status; each interface reaches it over real HTTP.
// BASE_URL is the listening address: the audience of the agent's /mcp token.
const { app, base: origin } = await startLiveApp()
const endpoint = `${origin}/v1/graphql`
const team = await makeTeam(app, 'pro')
const others = await makeTeam(app, 'pro')
const site = await createSite(app.db, { name: 'Bakery', accountId: team.accountId })
const foreignSite = await createSite(app.db, { name: 'Elsewhere', accountId: others.accountId })
const consent = { version: CONSENT_VERSION, digest: 'a'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
const lead = (siteId: string, email: string) =>
  insertLead(app.db, app.keyring, { siteId, sessionId: null, email, note: 'Hello', consent, source: 'contact_form' }) as Promise<string>

const ours = await lead(site.id, 'ana@example.com')
const second = await lead(site.id, 'ben@example.com')
const theirs = await lead(foreignSite.id, 'zoe@example.com')
const rest = createClient<paths>({ baseUrl: origin, headers: team.owner.api })

async function audited(operation: string): Promise<number[]> {
  await afterAuditFlush()
  const rows = await app.db
    .selectFrom('audit_log')
    .select(['status', 'at'])
    .where('account_id', '=', team.accountId)
    .where('operation', '=', operation)
    .orderBy('at')
    .execute()
  return rows.map((row) => row.status)
}

describe("a lead's status", () => {
  it('is new at first and changes by PATCH /v1/leads/{id}, held to If-Match and audited', async () => {
    const got = await rest.GET('/v1/leads/{id}', { params: { path: { id: ours } } })
    expect(got.data?.status).toBe('new')
    const etag = got.response.headers.get('etag')!

    const changed = await rest.PATCH('/v1/leads/{id}', {
      params: { path: { id: ours } },
      body: { status: 'answered' },
      headers: { 'if-match': etag },
    })
    expect(changed.response.status).toBe(200)
    expect(changed.data).toMatchObject({ id: ours, status: 'answered', email: 'ana@example.com' })
    expect(changed.response.headers.get('etag')).not.toBe(etag)

    // The old ETag no longer names the lead.
    const stale = await rest.PATCH('/v1/leads/{id}', {
      params: { path: { id: ours } },
      body: { status: 'archived' },
      headers: { 'if-match': etag },
    })
    expect(stale.response.status).toBe(412)
    expect(stale.error).toMatchObject({ code: 'precondition_failed' })

    const filtered = await rest.GET('/v1/leads', { params: { query: { status: 'answered' } } })
    expect(filtered.data?.data.map((l) => l.id)).toEqual([ours])
    expect(await audited('leads.update')).toEqual([200, 412])
  })

  it('refuses a status that is not one, and any other field, with 400 validation_failed; another account’s lead is 404', async () => {
    const patch = (id: string, body: unknown, headers = team.owner.api) =>
      fetch(`${origin}/v1/leads/${id}`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    for (const body of [{ status: 'done' }, { status: 'answered', email: 'x@example.com' }, {}, { status: null }]) {
      const res = await patch(second, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(((await res.json()) as { code: string }).code).toBe('validation_failed')
    }
    const foreign = await patch(theirs, { status: 'archived' })
    expect(foreign.status).toBe(404)
    expect(((await foreign.json()) as { code: string }).code).toBe('not_found')
    // A viewer reads leads but changes none.
    expect((await patch(second, { status: 'archived' }, team.viewer.api)).status).toBe(403)
    const rows = await app.db.selectFrom('leads').select(['id', 'status']).where('id', 'in', [second, theirs]).execute()
    expect(rows.map((row) => row.status)).toEqual(['new', 'new'])
  })

  it('is read and set over GraphQL (Lead.status, updateLead, leads(status:))', async () => {
    const gql = clientFor(endpoint, { headers: team.owner.api })
    const done = await gql.rawRequest<{ updateLead: { id: string; status: string } | null }>(
      'mutation($input: UpdateLeadInput!) { updateLead(input: $input) { id status email } }',
      { input: { id: second, status: 'archived' } },
    )
    expect(done.errors).toBeUndefined()
    expect(done.data.updateLead).toEqual({ id: second, status: 'archived', email: 'ben@example.com' })
    const listed = await gql.rawRequest<{ leads: { nodes: Array<{ id: string; status: string }> } }>(
      '{ leads(status: archived) { nodes { id status } } }',
    )
    expect(listed.data.leads.nodes).toEqual([{ id: second, status: 'archived' }])

    const bad = await post(endpoint, { query: `mutation { updateLead(input: { id: "${second}", status: done }) { id } }` }, team.owner.api)
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED')
    const foreign = await gql.rawRequest<{ updateLead: null }>('mutation($input: UpdateLeadInput!) { updateLead(input: $input) { id } }', {
      input: { id: theirs, status: 'answered' },
    })
    expect(foreign.data.updateLead).toBeNull()
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND')
  })

  it('is set by the MCP tool update_lead, and list_leads filters by it', async () => {
    const mcp = await connect(origin, team.owner.mcp)
    const result = await mcp.callTool({ name: 'update_lead', arguments: { lead_id: second, status: 'new' } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ id: second, status: 'new' })
    const listed = await mcp.callTool({ name: 'list_leads', arguments: { status: 'new' } })
    expect((listed.structuredContent as { data: Array<{ id: string }> }).data.map((l) => l.id)).toEqual([second])

    const bad = await mcp.callTool({ name: 'update_lead', arguments: { lead_id: second, status: 'done' } })
    expect(bad.isError).toBe(true)
    const foreign = await mcp.callTool({ name: 'update_lead', arguments: { lead_id: theirs, status: 'answered' } })
    expect(foreign.isError).toBe(true)
    expect(JSON.stringify(foreign.content)).toContain('No lead')
    await mcp.close()
    const row = await app.db.selectFrom('leads').select('status').where('id', '=', theirs).executeTakeFirstOrThrow()
    expect(row.status).toBe('new')
  })
})
