import { describe, expect, it } from 'vitest'
import { listMembers } from '../../src/domain/accounts/members.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, memberBrowser, type TeamMember } from './helpers.ts'

// Regression: "Leave this account" on /app/accounts acted on one click. It now asks once, on a
// page of its own, as removing a member does; nothing changes until its form is sent.
describe('leaving an account asks first', async () => {
  const { app, base } = await startLiveApp()
  const team = await makeTeam(app, 'pro', 'leave')

  const browserOf = (member: TeamMember) => memberBrowser(base, member)
  const memberIds = async () => (await listMembers(app.db, app.keyring, team.accountId)).map((m) => m.id)

  it('offers a link to a confirmation page, not a one-click button', async () => {
    const editor = browserOf(team.editor)
    const accounts = await editor.get('/app/accounts')
    expect(accounts.status).toBe(200)
    expect(accounts.$('form[action="/app/accounts/leave"]')).toHaveLength(0)
    const link = accounts.$('a[href="/app/accounts/leave"]')
    expect(link.text()).toBe('Leave this account')

    const confirm = await editor.get(link.attr('href')!)
    expect(confirm.status).toBe(200)
    expect(confirm.$('h1').text()).toBe('Leave this account?')
    expect(confirm.$('main p').first().text()).toContain(`You lose access to the account of ${team.owner.email} at once`)
    expect(confirm.$('main a[href="/app/accounts"]').text()).toBe('Stay')
    // Opening the page changed nothing.
    expect(await memberIds()).toContain(team.editor.userId)

    const form = confirm.$('form[action="/app/accounts/leave"]')
    expect(form.find('button[type="submit"]').text()).toBe('Leave the account')
    const sent = await editor.post(form.attr('action')!, { _csrf: form.find('input[name="_csrf"]').attr('value')! })
    expect(sent.status).toBe(303)
    expect(sent.location).toBe('/app?done=left')
    expect(await memberIds()).not.toContain(team.editor.userId)
  })

  it('is offered to a viewer too', async () => {
    const confirm = await browserOf(team.viewer).get('/app/accounts/leave')
    expect(confirm.status).toBe(200)
    expect(confirm.$('main button').text()).toBe('Leave the account')
  })
})
