import { describe, expect, it } from 'vitest'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'
import { claimAgent, connect, registerAgent, textOf } from '../mcp/helpers.ts'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { makeAccount } from '../rest/helpers.ts'
import { expectProblem, formBrowser, httpClient } from './http.ts'

// Page history (DESIGN.md 19) over real HTTP: /v1, the editor without JavaScript, and MCP.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
const owner = await makeAccount(app, 'pro')
const other = await makeAccount(app, 'pro')
const api = httpClient(base, owner.headers.authorization)
const stranger = httpClient(base, other.headers.authorization)
const site = (await api('POST', '/v1/sites', { name: 'History', default_locale: 'en', locales: ['en'] })).json as { id: string }

async function revisions(pageId: string, as = api) {
  const res = await as('GET', `/v1/pages/${pageId}/revisions?per_page=100`)
  expect(res.status, res.text).toBe(200)
  return res.json as { data: Array<Record<string, any>>; meta: { total: number } } // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('GET /v1/pages/{id}/revisions and POST …/revisions/{revision_id}/restore', () => {
  it('keeps a revision of every change (who, when, what) and restores one as a new, audited change', async () => {
    const page = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/menu', title: 'Menu' })).json
    const hero = (await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'hero', content: { heading: 'Fresh bread' } })).json
    const text = (await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'Rye and spelt' } })).json
    // A change of content alone is made in one statement: it is kept as well.
    expect((await api('PATCH', `/v1/blocks/${text.id}`, { content: { markdown: 'Rye, spelt and sourdough' } })).status).toBe(200)
    expect((await api('PATCH', `/v1/blocks/${text.id}`, { position: 0 })).status).toBe(200)
    expect((await api('PATCH', `/v1/pages/${page.id}`, { title: 'Our menu' })).status).toBe(200)
    expect((await api('DELETE', `/v1/blocks/${hero.id}`)).status).toBe(204)

    const history = await revisions(page.id)
    expect(history.meta.total).toBe(7)
    expect(history.data.map((r) => r['operation'])).toEqual([
      'blocks.delete',
      'pages.update',
      'blocks.update',
      'blocks.update',
      'blocks.create',
      'blocks.create',
      'pages.create',
    ])
    for (const r of history.data) {
      expect(r).toMatchObject({
        id: expect.stringMatching(/^rev_/),
        page_id: page.id,
        token_id: owner.tokenId,
        path: '/menu',
        locale: 'en',
      })
      expect(Date.parse(r['created_at'])).toBeGreaterThan(Date.now() - 120_000)
    }
    // A move shifts two blocks: one revision, the page as the commit left it.
    expect(history.data[3]!['blocks'].map((b: { type: string }) => b.type)).toEqual(['hero', 'text'])
    expect(history.data[2]!['blocks'].map((b: { type: string }) => b.type)).toEqual(['text', 'hero'])
    const before = history.data[2]! // after the move, before the new title
    expect(before['title']).toBe('Menu')
    expect(before['blocks']).toEqual([
      { id: text.id, type: 'text', position: 0, content: { markdown: 'Rye, spelt and sourdough' } },
      { id: hero.id, type: 'hero', position: 1, content: { heading: 'Fresh bread' } },
    ])

    const restored = await api('POST', `/v1/pages/${page.id}/revisions/${before['id']}/restore`)
    expect(restored.status, restored.text).toBe(200)
    expect(restored.json).toMatchObject({ id: page.id, title: 'Menu', path: '/menu' })
    const blocks = (await api('GET', `/v1/pages/${page.id}/blocks`)).json.data
    expect(blocks).toEqual([
      { id: text.id, page_id: page.id, type: 'text', position: 0, content: { markdown: 'Rye, spelt and sourdough' } },
      { id: hero.id, page_id: page.id, type: 'hero', position: 1, content: { heading: 'Fresh bread' } },
    ])
    expect((await api('GET', `/v1/blocks/${hero.id}`)).status).toBe(200)
    const after = await revisions(page.id)
    expect(after.meta.total).toBe(8)
    expect(after.data[0]).toMatchObject({ operation: 'pages.revisions.restore', title: 'Menu', token_id: owner.tokenId })
    const audit = await app.db
      .selectFrom('audit_log')
      .select(['status', 'path'])
      .where('account_id', '=', owner.accountId)
      .where('operation', '=', 'pages.revisions.restore')
      .execute()
    expect(audit).toEqual([{ status: 200, path: '/v1/pages/:id/revisions/:revision_id/restore' }])
  })

  it('refuses bad input, other accounts (404) and read-only tokens', async () => {
    const page = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/private', title: 'Private' })).json
    const otherSite = (await stranger('POST', '/v1/sites', { name: 'Other', default_locale: 'en', locales: ['en'] })).json
    const otherPage = (await stranger('POST', `/v1/sites/${otherSite.id}/pages`, { path: '/x', title: 'X' })).json
    const [revision] = (await revisions(page.id)).data
    const [foreign] = (await stranger('GET', `/v1/pages/${otherPage.id}/revisions`)).json.data

    expectProblem(await stranger('GET', `/v1/pages/${page.id}/revisions`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/pages/${page.id}/revisions/${revision!['id']}/restore`), 404, 'not_found')
    // A revision of another page (of another account) is not this page's.
    expectProblem(await api('POST', `/v1/pages/${page.id}/revisions/${foreign.id}/restore`), 404, 'not_found')
    expectProblem(await api('POST', `/v1/pages/${page.id}/revisions/rev_0000000000000000/restore`), 404, 'not_found')
    expectProblem(await api('POST', `/v1/pages/${page.id}/revisions/nope/restore`), 400, 'validation_failed')
    expectProblem(await api('GET', `/v1/pages/${page.id}/revisions?per_page=1000`), 400, 'validation_failed')

    const { secret } = await createApiToken(app.db, { accountId: owner.accountId, name: 'reader', scopes: ['read:sites'] })
    const reader = httpClient(base, `Bearer ${secret}`)
    expect((await reader('GET', `/v1/pages/${page.id}/revisions`)).status).toBe(200)
    expectProblem(await reader('POST', `/v1/pages/${page.id}/revisions/${revision!['id']}/restore`), 403, 'insufficient_scope')
    expect((await revisions(page.id)).meta.total).toBe(1)
  })
})

describe('the editor without JavaScript', () => {
  it('lists who changed a page and when, restores a version; a viewer sees but cannot restore', async () => {
    const team = await makeTeam(app, 'pro')
    const browser = formBrowser(base, team.editor.cookie)
    const mine = httpClient(base, team.owner.api.authorization)
    const ownSite = (await mine('POST', '/v1/sites', { name: 'Bakery', default_locale: 'en', locales: ['en'] })).json
    const page = (await mine('POST', `/v1/sites/${ownSite.id}/pages`, { path: '/', title: 'Home' })).json

    const screen = await browser.get(`/app/pages/${page.id}`)
    expect(screen.status).toBe(200)
    expect(screen.body).toContain(`href="/app/pages/${page.id}/history"`)
    // The editor changes the title in the editor: the history names them, and the owner's token before.
    expect((await browser.post(`/app/pages/${page.id}`, { title: 'Welcome', path: '/', locale: 'en', description: '' })).status).toBe(303)
    const history = await browser.get(`/app/pages/${page.id}/history`)
    expect(history.status).toBe(200)
    expect(history.body).toContain(team.editor.email)
    expect(history.body).toContain(team.owner.email)
    expect(history.body).toContain('Changed the page details')
    expect(history.body).toContain('Created the page')
    expect(history.body).toContain('Current version')
    const restore = /action="(\/app\/pages\/[^"]+\/revisions\/rev_[^"/]+\/restore)"/.exec(history.body)
    expect(restore).toBeTruthy()
    // A form without the CSRF token changes nothing.
    const forged = await fetch(`${base}${restore![1]}`, {
      method: 'POST',
      headers: { cookie: team.editor.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    })
    expect(forged.status).toBe(403)
    const done = await browser.post(restore![1]!)
    expect(done.status, done.body).toBe(303)
    expect(done.location).toBe(`/app/pages/${page.id}/history?done=restored`)
    expect((await mine('GET', `/v1/pages/${page.id}`)).json.title).toBe('Home')
    const again = await browser.get(done.location!)
    expect(again.body).toContain('The version was restored')
    expect(again.body).toContain('Restored an earlier version')

    const viewing = formBrowser(base, team.viewer.cookie)
    const seen = await viewing.get(`/app/pages/${page.id}/history`)
    expect(seen.status).toBe(200)
    expect(seen.body).not.toContain('Restore this version')
    expect((await viewing.post(restore![1]!)).status).toBe(403)
    expect((await revisions(page.id, mine)).meta.total).toBe(3)
  })
})

describe('MCP tools', () => {
  it('list_page_revisions and restore_page_revision', async () => {
    const { token, accountId } = await claimAgent(app, base, await registerAgent(base), 'agent-owner@example.com')
    await updateAccount(app.db, accountId, { plan: 'pro' })
    const client = await connect(base, token)
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy()
      return result.structuredContent as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
    }
    const s = await call('create_site', { name: 'Agent site' })
    const page = await call('create_page', { site_id: s['id'], path: '/about', title: 'About' })
    await call('update_page', { page_id: page['id'], title: 'About us' })
    const listed = await call('list_page_revisions', { page_id: page['id'] })
    expect(listed['meta'].total).toBe(2)
    expect(listed['data'].map((r: { title: string }) => r.title)).toEqual(['About us', 'About'])
    expect(listed['data'][1].operation).toBe('create_page')
    const restored = await call('restore_page_revision', { page_id: page['id'], revision_id: listed['data'][1].id })
    expect(restored['title']).toBe('About')
    const refused = await client.callTool({
      name: 'restore_page_revision',
      arguments: { page_id: page['id'], revision_id: 'rev_nothing0000' },
    })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^not_found: /)
    await client.close()
  })
})
