import { describe, expect, it } from 'vitest'
import { listMembers } from '../../src/domain/accounts/members.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, memberBrowser, type TeamMember } from './helpers.ts'

// Removing a member asks once, on a page of its own, as deleting a page or a block does: the
// Members table links to it, nothing changes until its form is sent, and it works without script.
describe('removing a member asks first', async () => {
  const { app, base } = await startLiveApp()
  const team = await makeTeam(app, 'pro', 'remove')

  const browserOf = (member: TeamMember) => memberBrowser(base, member)
  const memberIds = async () => (await listMembers(app.db, app.keyring, team.accountId)).map((m) => m.id)

  it('offers a link to a confirmation page, not a one-click button', async () => {
    const owner = browserOf(team.owner)
    const members = await owner.get('/app/members')
    expect(members.status).toBe(200)
    expect(members.$(`form[action="/app/members/${team.editor.userId}/remove"]`)).toHaveLength(0)
    const link = members.$(`a[href="/app/members/${team.editor.userId}/remove"]`)
    expect(link.text()).toBe(`Remove ${team.editor.email}`)

    const confirm = await owner.get(link.attr('href')!)
    expect(confirm.status).toBe(200)
    expect(confirm.$('h1').text()).toBe(`Remove ${team.editor.email}?`)
    expect(confirm.$('main p').first().text()).toContain('loses access to this account at once')
    expect(confirm.$('main a[href="/app/members"]').text()).toBe('Keep them')
    // Opening the page changed nothing.
    expect(await memberIds()).toContain(team.editor.userId)

    const form = confirm.$(`form[action="/app/members/${team.editor.userId}/remove"]`)
    expect(form.find('button[type="submit"]').text()).toBe(`Remove ${team.editor.email}`)
    const sent = await owner.post(form.attr('action')!, { _csrf: form.find('input[name="_csrf"]').attr('value')! })
    expect(sent.status).toBe(303)
    expect(sent.location).toBe('/app/members?done=member-removed')
    expect(await memberIds()).not.toContain(team.editor.userId)
  })

  it('asks an owner leaving the account in their own words', async () => {
    const confirm = await browserOf(team.owner).get(`/app/members/${team.owner.userId}/remove`)
    expect(confirm.$('h1').text()).toBe('Leave this account?')
    expect(confirm.$('main button').text()).toBe('Leave the account')
  })

  it('keeps the page to owners, and answers 404 for someone not in the account', async () => {
    expect((await browserOf(team.viewer).get(`/app/members/${team.owner.userId}/remove`)).status).toBe(403)
    expect((await browserOf(team.owner).get('/app/members/usr_nobody/remove')).status).toBe(404)
  })
})
