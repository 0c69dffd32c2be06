import * as cheerio from 'cheerio'
import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { addMember, membershipsOf, ownersOf } from '../../src/domain/accounts/members.ts'
import { newId } from '../../src/infra/crypto.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { signAccessToken } from '../../src/identity/oauth/access-tokens.ts'
import { buildTestApp } from '../helpers/app.ts'
import { afterAuditFlush } from '../rest/helpers.ts'
import { formToken, get, post } from '../dashboard/helpers.ts'
import { makeTeam, person, sessionCookie, type TeamMember } from './helpers.ts'

// A person in several accounts, over real HTTP on both databases: the dashboard lists them and
// works in the one chosen in that browser, every other account's data answering 404; the last
// owner stays; a removed member loses their session's account and every credential of it at
// once; the audit log names the member who acted and filters by them.
describe('several accounts per person', async () => {
  const { app } = await buildTestApp()

  const $ = (body: string) => cheerio.load(body)
  async function submit(cookie: string, path: string, form: Record<string, string> = {}) {
    const csrf = await formToken(app, cookie, '/app/accounts')
    return post(app, path, csrf.cookie, { ...form, _csrf: csrf.token })
  }

  it('lists the accounts, switches between them per browser, and keeps the others’ data not found', async () => {
    const team = await makeTeam(app, 'pro', 'switch')
    const teamSite = await createAccountSite(app.db, team.accountId, { name: 'Team Bakery' })
    // The editor has an account of their own too, with its own site.
    const own = await person(app, 'switch-editor-own@example.com')
    await addMember(app.db, own.accountId, team.editor.userId, 'owner')
    const ownSite = await createAccountSite(app.db, own.accountId, { name: 'Side Project' })
    const stranger = await person(app, 'stranger@example.com')
    const strangerSite = await createAccountSite(app.db, stranger.accountId, { name: 'Not Yours' })

    const cookie = team.editor.cookie
    const accounts = $((await get(app, '/app/accounts', cookie)).body)
    expect(accounts('table tbody tr')).toHaveLength(2)
    expect(accounts('table').text()).toContain(`Account of ${team.owner.email}`)
    expect(accounts('table').text()).toContain('Account of switch-editor-own@example.com')
    expect((await get(app, `/app/sites/${teamSite.id}`, cookie)).statusCode).toBe(200)
    expect((await get(app, `/app/sites/${ownSite.id}`, cookie)).statusCode).toBe(404)
    expect((await get(app, '/app/members', cookie)).statusCode).toBe(403)

    const switched = await submit(cookie, '/app/accounts/switch', { account_id: own.accountId })
    expect(switched.statusCode).toBe(303)
    expect(switched.headers.location).toBe('/app?done=switched')
    const overview = $((await get(app, '/app', cookie)).body)
    expect(overview('.who').text()).toBe(`${team.editor.email} (owner)`)
    expect((await get(app, `/app/sites/${ownSite.id}`, cookie)).statusCode).toBe(200)
    expect((await get(app, `/app/sites/${teamSite.id}`, cookie)).statusCode).toBe(404)
    expect((await get(app, '/app/sites', cookie)).body).toContain('Side Project')
    expect((await get(app, '/app/sites', cookie)).body).not.toContain('Team Bakery')
    expect((await get(app, '/app/members', cookie)).statusCode).toBe(200)

    // Another browser of the same person keeps its own choice.
    const other = await sessionCookie(app, team.editor.userId, team.accountId)
    expect((await get(app, `/app/sites/${teamSite.id}`, other)).statusCode).toBe(200)

    // Nobody switches into an account they do not belong to, and a stranger's site stays not found.
    const refused = await submit(cookie, '/app/accounts/switch', { account_id: stranger.accountId })
    expect(refused.statusCode).toBe(404)
    expect((await get(app, `/app/sites/${strangerSite.id}`, cookie)).statusCode).toBe(404)
    expect((await get(app, `/app/sites/${ownSite.id}`, cookie)).statusCode).toBe(200)
  })

  it('names an account by the owner who joined first, even when both joined within one clock tick', async () => {
    const people = await Promise.all(['tick-a@example.com', 'tick-b@example.com'].map((email) => person(app, email)))
    // The one whose id sorts last joins first, so an order by id would name the other.
    const [early, late] = people.sort((a, b) => (a.id < b.id ? 1 : -1)) as [(typeof people)[0], (typeof people)[0]]
    const accountId = newId('acct')
    await app.db.insertInto('accounts').values({ id: accountId }).execute()
    const at = new Date()
    for (const member of [early, late])
      await app.db
        .insertInto('account_members')
        .values({ account_id: accountId, user_id: member.id, role: 'owner', created_at: at })
        .execute()
    expect(await ownersOf(app.db, accountId)).toEqual([early.id, late.id])
    const membership = (await membershipsOf(app.db, app.keyring, late.id)).find((m) => m.accountId === accountId)
    expect(membership?.ownerEmail).toBe(early.email)
  })

  it('keeps the last owner: not demoted, not removed, not leaving', async () => {
    const team = await makeTeam(app, 'pro', 'last')
    const demote = await submit(team.owner.cookie, `/app/members/${team.owner.userId}/role`, { role: 'editor' })
    expect(demote.statusCode).toBe(409)
    expect(demote.body).toContain('The account would have no owner left')
    expect((await submit(team.owner.cookie, `/app/members/${team.owner.userId}/remove`)).statusCode).toBe(409)
    const leave = await submit(team.owner.cookie, '/app/accounts/leave')
    expect(leave.statusCode).toBe(409)
    expect(leave.body).toContain('The last owner cannot leave the account')
    expect((await membershipsOf(app.db, app.keyring, team.owner.userId)).map((m) => m.role)).toEqual(['owner'])

    // With a second owner the first may step down, and then leave.
    expect((await submit(team.owner.cookie, `/app/members/${team.editor.userId}/role`, { role: 'owner' })).headers.location).toBe(
      '/app/members?done=role-changed',
    )
    expect((await submit(team.owner.cookie, `/app/members/${team.owner.userId}/role`, { role: 'viewer' })).headers.location).toBe(
      '/app?done=role-changed',
    )
    expect((await get(app, '/app/members', team.owner.cookie)).statusCode).toBe(403)
    expect((await submit(team.owner.cookie, '/app/accounts/leave')).headers.location).toBe('/app?done=left')
    // Left without any account, they get one of their own, as at a first sign-in.
    const [home] = await membershipsOf(app.db, app.keyring, team.owner.userId)
    expect(home).toMatchObject({ role: 'owner', plan: 'free' })
    expect(home!.accountId).not.toBe(team.accountId)
    expect($((await get(app, '/app', team.owner.cookie)).body)('.who').text()).toBe(`${team.owner.email} (owner)`)
    expect((await get(app, '/app/accounts', team.owner.cookie)).body).not.toContain(team.accountId)
  })

  it('takes effect at once: a new role on every credential, a removed member losing them all', async () => {
    const team = await makeTeam(app, 'pro', 'effect')
    const site = await createAccountSite(app.db, team.accountId, { name: 'Effect' })
    const addPage = (m: TeamMember, path: string) =>
      app.inject({ method: 'POST', url: `/v1/sites/${site.id}/pages`, headers: m.api, payload: { path, title: 'Page' } })
    expect((await addPage(team.editor, '/one')).statusCode).toBe(201)

    expect((await submit(team.owner.cookie, `/app/members/${team.editor.userId}/role`, { role: 'viewer' })).statusCode).toBe(303)
    const refused = await addPage(team.editor, '/two')
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'role_required' })
    expect($((await get(app, '/app', team.editor.cookie)).body)('.who').text()).toBe(`${team.editor.email} (viewer)`)

    // An access token of the person's own client, and one of the agent they claimed.
    const audience = `${app.config.API_URL}/v1`
    const personToken = (
      await signAccessToken(app.signer, {
        subject: team.editor.userId,
        clientId: 'cli_team',
        audience,
        scope: ['read:sites'],
        accountId: team.accountId,
      })
    ).token
    const agent = decodeJwt(team.editor.mcp).sub!
    const agentToken = (
      await signAccessToken(app.signer, { subject: agent, clientId: agent, audience, scope: ['read:sites'], accountId: team.accountId })
    ).token
    for (const token of [personToken, agentToken])
      expect((await app.inject({ method: 'GET', url: '/v1/sites', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200)

    const removed = await submit(team.owner.cookie, `/app/members/${team.editor.userId}/remove`)
    expect(removed.headers.location).toBe('/app/members?done=member-removed')
    const gone = await app.inject({ method: 'GET', url: '/v1/sites', headers: team.editor.api })
    expect(gone.statusCode).toBe(401)
    for (const token of [personToken, agentToken]) {
      const refusedToken = await app.inject({ method: 'GET', url: '/v1/sites', headers: { authorization: `Bearer ${token}` } })
      expect(refusedToken.statusCode).toBe(401)
      expect(refusedToken.json()).toMatchObject({
        code: 'invalid_token',
        detail: 'The person of this access token no longer belongs to the account',
      })
    }
    const revoked = await app.db
      .selectFrom('api_tokens')
      .select('revoked_at')
      .where('user_id', '=', team.editor.userId)
      .where('account_id', '=', team.accountId)
      .execute()
    expect(revoked.every((t) => t.revoked_at !== null)).toBe(true)
    // Their browser now works in the account of their own they were given, not in the team's.
    expect((await get(app, `/app/sites/${site.id}`, team.editor.cookie)).statusCode).toBe(404)
    const members = $((await get(app, '/app/members', team.owner.cookie)).body)
    expect(members('table').first().text()).not.toContain(team.editor.email)
  })

  it('records the member who acted, and the owner filters the audit log by member', async () => {
    const team = await makeTeam(app, 'pro', 'audit')
    const site = await createAccountSite(app.db, team.accountId, { name: 'Audited' })
    await app.inject({ method: 'PATCH', url: `/v1/sites/${site.id}`, headers: team.editor.api, payload: { name: 'Audited by the editor' } })
    await app.inject({ method: 'GET', url: '/v1/sites', headers: team.viewer.api })
    await afterAuditFlush()

    const byEditor = await app.inject({ method: 'GET', url: `/v1/audit-log?user_id=${team.editor.userId}`, headers: team.owner.api })
    const records = byEditor.json() as { data: Array<{ operation: string; user_id: string; token_id: string }> }
    expect(records.data.map((r) => r.operation)).toEqual(['sites.update'])
    expect(records.data[0]).toMatchObject({ user_id: team.editor.userId, token_id: team.editor.tokenId })

    const page = $((await get(app, `/app/audit-log?user_id=${team.viewer.userId}`, team.owner.cookie)).body)
    expect(page('#member option[selected]').text()).toBe(team.viewer.email)
    const rows = page('table tbody tr')
    expect(rows.length).toBeGreaterThan(0)
    rows.each((_i, row) => {
      expect(page(row).find('td').eq(1).text()).toBe(team.viewer.email)
    })
    expect(page('table').text()).not.toContain('sites.update')
    const everyone = $((await get(app, '/app/audit-log', team.owner.cookie)).body)
    expect(everyone('table').text()).toContain(team.editor.email)
  })
})
