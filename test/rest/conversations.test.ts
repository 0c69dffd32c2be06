import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { makeAccount } from './helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { client, expectProblem } from './sites-helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })
const owner = await makeAccount(app, 'pro')
await withAssistantAddOn(app.db, owner.accountId)
const other = await makeAccount(app, 'pro')
const api = client(app, owner.headers)
const stranger = client(app, other.headers)
await createSite(app.db, {
  name: 'Help desk',
  accountId: owner.accountId,
  hostname: 'help.example',
  settings: { assistant: { enabled: true, capabilities: { handoff: true } } },
})

async function requested() {
  const session = await bootstrap(app, { url: 'https://help.example/' })
  const res = await chat(app, session, 'Can I talk to a human please?')
  expect(res.json().handoff.state).toBe('requested')
  return session
}

describe('/v1/conversations', () => {
  it('lists requested handoffs, takes one over, writes to the visitor and resolves it', async () => {
    const session = await requested()
    const inbox = await api('GET', '/v1/conversations?handoff=requested')
    expect(inbox.statusCode, inbox.body).toBe(200)
    expect(inbox.json().data).toContainEqual(
      expect.objectContaining({ session_id: session.session_id, handoff: { state: 'requested', since: expect.any(String) } }),
    )
    expect((await stranger('GET', '/v1/conversations')).json().meta.total).toBe(0)

    const detail = (await api('GET', `/v1/conversations/${session.session_id}`)).json()
    expect(detail.messages.map((m: { role: string }) => m.role)).toEqual(['visitor', 'assistant'])

    const taken = await api('POST', `/v1/conversations/${session.session_id}/take`)
    expect(taken.statusCode, taken.body).toBe(200)
    expect(taken.json().handoff.state).toBe('active')
    expectProblem(await api('POST', `/v1/conversations/${session.session_id}/take`), 409, 'handoff_state_conflict')

    const sent = await api('POST', `/v1/conversations/${session.session_id}/messages`, { text: 'Hi, this is Mia from the team.' })
    expect(sent.statusCode, sent.body).toBe(200)
    expect(sent.json().messages.at(-1)).toMatchObject({ role: 'operator', text: 'Hi, this is Mia from the team.' })
    const rehydrated = await bootstrap(app, { session_id: session.session_id, session_token: session.session_token })
    expect(rehydrated['messages']).toContainEqual(expect.objectContaining({ role: 'operator', text: 'Hi, this is Mia from the team.' }))
    expect(rehydrated['handoff']).toEqual({ state: 'active' })

    const resolved = await api('POST', `/v1/conversations/${session.session_id}/resolve`)
    expect(resolved.json().handoff.state).toBe('resolved')
    expectProblem(
      await api('POST', `/v1/conversations/${session.session_id}/messages`, { text: 'Too late' }),
      409,
      'handoff_state_conflict',
    )
    expect(
      (await api('GET', '/v1/conversations?handoff=requested')).json().data.map((c: { session_id: string }) => c.session_id),
    ).not.toContain(session.session_id)
  })

  it('refuses other accounts, bad ids and bad messages', async () => {
    const session = await requested()
    expectProblem(await stranger('GET', `/v1/conversations/${session.session_id}`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/conversations/${session.session_id}/take`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/conversations/${session.session_id}/resolve`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/conversations/${session.session_id}/messages`, { text: 'Hello' }), 404, 'not_found')
    expectProblem(await api('GET', '/v1/conversations/not-a-session'), 400, 'validation_failed')
    expectProblem(await api('GET', '/v1/conversations?handoff=maybe'), 400, 'validation_failed')
    await api('POST', `/v1/conversations/${session.session_id}/take`)
    for (const body of [{ text: '' }, { text: 5 }, { text: 'x'.repeat(2001) }, { text: 'hi', extra: 1 }, {}]) {
      expectProblem(await api('POST', `/v1/conversations/${session.session_id}/messages`, body), 400, 'validation_failed')
    }
    expectProblem(await api('POST', `/v1/conversations/${session.session_id}/messages`, { text: '   ' }), 400, 'validation_failed')
    expect(
      (await api('GET', `/v1/conversations/${session.session_id}`)).json().messages.filter((m: { role: string }) => m.role === 'operator'),
    ).toEqual([])
  })

  it('reads with read:sites and acts with write:pages', async () => {
    const session = await requested()
    const reader = client(app, (await makeAccount(app, 'pro', ['read:sites'])).headers)
    expect((await reader('GET', '/v1/conversations')).statusCode).toBe(200)
    expectProblem(await reader('POST', `/v1/conversations/${session.session_id}/take`), 403, 'insufficient_scope')
  })
})
