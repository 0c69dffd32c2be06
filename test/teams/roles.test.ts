import type { Client } from '@modelcontextprotocol/client'
import { afterAll, describe, expect, it } from 'vitest'
import type { Role } from '../../src/domain/accounts/members.ts'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { formToken, get, post } from '../dashboard/helpers.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { makeTeam, type TeamMember } from './helpers.ts'

type Outcome = 'allowed' | 403 | 404
interface Action {
  name: string
  try: (member: TeamMember) => Promise<Outcome>
  /** What the owner, the editor and the viewer get. */
  expect: [Outcome, Outcome, Outcome]
}

const ROLES: Role[] = ['owner', 'editor', 'viewer']

// Every action of each interface tried by an owner, an editor and a viewer of one pro account,
// each with their own credentials: an API token on /v1, a claimed agent's token on /mcp, an API
// token on GraphQL and a browser session on the dashboard. A refusal is 403 role_required, or 404
// for another member's token.
describe('what each role may do on every interface', async () => {
  const { app, base } = await startLiveApp()
  const team = await makeTeam(app, 'pro', 'roles')
  const site = await createAccountSite(app.db, team.accountId, { name: 'Harbour Bakery' })
  const home = await createPage(app.db, site, { path: '/', title: 'Home' })
  const block = await insertBlock(app.db, home.id, { type: 'text', content: { markdown: 'Fresh bread' } })
  let n = 0
  const unique = () => `${++n}-${Date.now().toString(36)}`
  const others: Record<Role, Role> = { owner: 'editor', editor: 'viewer', viewer: 'editor' }

  // /v1 with the member's own API token.
  async function rest(member: TeamMember, method: string, path: string, body?: unknown): Promise<Outcome> {
    const res = await fetch(`${base}/v1${path}`, {
      method,
      headers: { ...member.api, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    if (res.status < 300) return 'allowed'
    const problem = JSON.parse(text) as { code: string; detail: string }
    if (res.status === 403) {
      expect(problem.code, problem.detail).toBe('role_required')
      expect(problem.detail).toMatch(/ is (an owner|an editor|a viewer); only (an owner|an editor or an owner|a member) may do this$/)
    }
    expect([403, 404], text).toContain(res.status)
    return res.status as 403 | 404
  }

  // /mcp as an agent the member claimed, through the official client.
  const clients = new Map<string, Client>()
  afterAll(async () => {
    for (const client of clients.values()) await client.close()
  })
  async function mcp(member: TeamMember, tool: string, args: Record<string, unknown>): Promise<Outcome> {
    let client = clients.get(member.role)
    if (!client) clients.set(member.role, (client = await connect(base, member.mcp)))
    const result = await client.callTool({ name: tool, arguments: args })
    if (!result.isError) return 'allowed'
    const text = textOf(result)
    if (text.startsWith('role_required:')) return 403
    expect(text).toMatch(/^not_found:/)
    return 404
  }

  // GraphQL with the member's API token.
  async function graphql(member: TeamMember, query: string, variables: Record<string, unknown> = {}): Promise<Outcome> {
    const res = await fetch(`${base}/v1/graphql`, {
      method: 'POST',
      headers: { ...member.api, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    })
    const body = (await res.json()) as { errors?: Array<{ extensions: { code: string; reason?: string } }> }
    const error = body.errors?.[0]
    if (!error) return 'allowed'
    if (error.extensions.code === 'FORBIDDEN') {
      expect(error.extensions.reason).toBe('role_required')
      return 403
    }
    expect(error.extensions.code).toBe('NOT_FOUND')
    return 404
  }

  // The dashboard in the member's browser: pages, and forms posted with the CSRF token.
  async function dashboard(member: TeamMember, path: string, form?: Record<string, string>): Promise<Outcome> {
    let status: number
    if (form) {
      const csrf = await formToken(app, member.cookie, '/app/accounts')
      status = (await post(app, `/app${path}`, csrf.cookie, { ...form, _csrf: csrf.token })).statusCode
    } else status = (await get(app, `/app${path}`, member.cookie)).statusCode
    if (status === 200 || status === 303) return 'allowed'
    expect([403, 404]).toContain(status)
    return status as 403 | 404
  }

  const actions: Action[] = [
    { name: '/v1: read the sites', try: (m) => rest(m, 'GET', '/sites'), expect: ['allowed', 'allowed', 'allowed'] },
    { name: '/v1: list the members', try: (m) => rest(m, 'GET', '/account/members'), expect: ['allowed', 'allowed', 'allowed'] },
    { name: '/v1: read the account', try: (m) => rest(m, 'GET', '/account'), expect: ['allowed', 'allowed', 'allowed'] },
    { name: '/v1: read the leads', try: (m) => rest(m, 'GET', '/leads'), expect: ['allowed', 'allowed', 'allowed'] },
    {
      name: '/v1: add a page',
      try: (m) => rest(m, 'POST', `/sites/${site.id}/pages`, { path: `/rest-${unique()}`, title: 'A page' }),
      expect: ['allowed', 'allowed', 403],
    },
    {
      name: '/v1: change a block',
      try: (m) => rest(m, 'PATCH', `/blocks/${block.id}`, { content: { markdown: `Bread ${unique()}` } }),
      expect: ['allowed', 'allowed', 403],
    },
    {
      name: '/v1: create a site',
      try: (m) => rest(m, 'POST', '/sites', { name: `Site ${unique()}` }),
      expect: ['allowed', 'allowed', 403],
    },
    {
      name: '/v1: add a webhook endpoint',
      try: (m) => rest(m, 'POST', '/webhooks', { url: 'https://hooks.example/in' }),
      expect: ['allowed', 403, 403],
    },
    { name: '/v1: list the webhook endpoints', try: (m) => rest(m, 'GET', '/webhooks'), expect: ['allowed', 403, 403] },
    {
      name: '/v1: invite a member',
      try: (m) => rest(m, 'POST', '/account/members', { email: `rest-${m.role}-${unique()}@example.com`, role: 'viewer' }),
      expect: ['allowed', 403, 403],
    },
    { name: '/v1: list the pending invitations', try: (m) => rest(m, 'GET', '/account/invitations'), expect: ['allowed', 403, 403] },
    { name: '/v1: read the audit log', try: (m) => rest(m, 'GET', '/audit-log'), expect: ['allowed', 403, 403] },
    {
      name: '/v1: make an own API token',
      try: (m) => rest(m, 'POST', '/tokens', { name: `own ${unique()}`, scopes: ['read:sites'] }),
      expect: ['allowed', 'allowed', 'allowed'],
    },
    {
      name: "/v1: revoke another member's API token",
      try: async (m) => {
        const target = team[others[m.role]]
        const { token } = await createApiToken(app.db, {
          accountId: team.accountId,
          userId: target.userId,
          name: 'target',
          scopes: ['read:sites'],
        })
        return rest(m, 'DELETE', `/tokens/${token.id}`)
      },
      expect: ['allowed', 404, 404],
    },
    {
      name: "/v1: read another member's API token",
      try: (m) => rest(m, 'GET', `/tokens/${team[others[m.role]].tokenId}`),
      expect: ['allowed', 404, 404],
    },
    { name: 'MCP: list the sites', try: (m) => mcp(m, 'list_sites', {}), expect: ['allowed', 'allowed', 'allowed'] },
    {
      name: 'MCP: create a page',
      try: (m) => mcp(m, 'create_page', { site_id: site.id, path: `/mcp-${unique()}`, title: 'From an agent' }),
      expect: ['allowed', 'allowed', 403],
    },
    {
      name: 'MCP: change a block',
      try: (m) => mcp(m, 'update_block', { block_id: block.id, content: { markdown: `Agent ${unique()}` } }),
      expect: ['allowed', 'allowed', 403],
    },
    {
      name: 'GraphQL: read the sites',
      try: (m) => graphql(m, '{ sites(first: 5) { totalCount } }'),
      expect: ['allowed', 'allowed', 'allowed'],
    },
    {
      name: 'GraphQL: create a page',
      try: (m) =>
        graphql(m, 'mutation($input: CreatePageInput!) { createPage(input: $input) { id } }', {
          input: { siteId: site.id, path: `/gql-${unique()}`, title: 'From GraphQL' },
        }),
      expect: ['allowed', 'allowed', 403],
    },
    {
      name: 'GraphQL: read the webhook endpoints',
      try: (m) => graphql(m, '{ webhookEndpoints(first: 5) { totalCount } }'),
      expect: ['allowed', 403, 403],
    },
    { name: 'GraphQL: read the audit log', try: (m) => graphql(m, '{ auditLog(first: 5) { totalCount } }'), expect: ['allowed', 403, 403] },
    { name: 'dashboard: open the sites', try: (m) => dashboard(m, '/sites'), expect: ['allowed', 'allowed', 'allowed'] },
    {
      name: 'dashboard: add a page',
      try: (m) =>
        dashboard(m, `/sites/${site.id}/pages`, { title: 'Dashboard page', path: `/dash-${unique()}`, locale: 'en', description: '' }),
      expect: ['allowed', 'allowed', 403],
    },
    { name: 'dashboard: open Members', try: (m) => dashboard(m, '/members'), expect: ['allowed', 403, 403] },
    {
      name: 'dashboard: invite a member',
      try: (m) => dashboard(m, '/members/invite', { email: `dash-${m.role}-${unique()}@example.com`, role: 'editor' }),
      expect: ['allowed', 403, 403],
    },
    { name: 'dashboard: open Webhooks', try: (m) => dashboard(m, '/webhooks'), expect: ['allowed', 403, 403] },
    { name: 'dashboard: open the audit log', try: (m) => dashboard(m, '/audit-log'), expect: ['allowed', 403, 403] },
    {
      name: 'dashboard: make an own API token',
      try: (m) => dashboard(m, '/tokens', { name: `own ${unique()}`, scopes: 'read:sites' }),
      expect: ['allowed', 'allowed', 'allowed'],
    },
    { name: 'dashboard: open the accounts', try: (m) => dashboard(m, '/accounts'), expect: ['allowed', 'allowed', 'allowed'] },
  ]

  for (const action of actions) {
    it(action.name, async () => {
      const got = []
      for (const role of ROLES) got.push(await action.try(team[role]))
      expect(got).toEqual(action.expect)
    })
  }

  it('shows each member only their own tokens, an owner every token with who made it', async () => {
    const list = async (m: TeamMember) =>
      (
        (await (await fetch(`${base}/v1/tokens?per_page=100`, { headers: m.api })).json()) as {
          data: Array<{ id: string; user_id: string | null }>
        }
      ).data
    const owners = await list(team.owner)
    expect(new Set(owners.map((t) => t.user_id))).toEqual(new Set([team.owner.userId, team.editor.userId, team.viewer.userId]))
    for (const role of ['editor', 'viewer'] as const) {
      const own = await list(team[role])
      expect(own.length).toBeGreaterThan(0)
      expect(own.every((t) => t.user_id === team[role].userId)).toBe(true)
    }
    const page = await get(app, '/app/tokens', team.editor.cookie)
    expect(page.body).toContain('Your tokens')
    expect(page.body).not.toContain("owner's token")
    expect((await get(app, '/app/tokens', team.owner.cookie)).body).toContain(team.viewer.email)
  })

  it('offers each role only the sections it opens', async () => {
    const nav = async (m: TeamMember) =>
      /<nav aria-label="Dashboard sections">(.*?)<\/nav>/s.exec((await get(app, '/app', m.cookie)).body)![1]!
    expect(await nav(team.owner)).toContain('Team')
    for (const role of ['editor', 'viewer'] as const) {
      const links = await nav(team[role])
      expect(links).not.toMatch(/Team|Webhooks|Audit log/)
      expect(links).toContain('Sites')
    }
  })
})
