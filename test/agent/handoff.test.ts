import { describe, expect, it } from 'vitest'
import { HandoffTransitionError, nextHandoffState } from '../../src/domain/leads/handoff.ts'
import { listHandoffs, postOperatorMessage, resolveHandoff, takeHandoff } from '../../src/domain/leads/conversations.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { contractErrors } from './contract.ts'
import { bootstrap, chat, event } from './helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })
await createSite(app.db, {
  name: 'Solo',
  hostname: 'solo.example',
  settings: { assistant: { enabled: true, capabilities: { lead: true, handoff: false } } },
})

async function say(session: Awaited<ReturnType<typeof bootstrap>>, message: string) {
  const res = await chat(app, session, message)
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json()
  expect(contractErrors('chat', body)).toEqual([])
  return body as { reply: string; handoff: { state: string }; actions?: unknown[] }
}

const transcript = async (s: Awaited<ReturnType<typeof bootstrap>>) =>
  (await bootstrap(app, { session_id: s.session_id, session_token: s.session_token }))['messages'] as Array<{ role: string; text: string }>

describe('handoff state machine', () => {
  it('allows exactly the documented transitions', () => {
    expect(nextHandoffState('none', 'visitor_requested')).toBe('requested')
    expect(nextHandoffState('resolved', 'visitor_requested')).toBe('requested')
    expect(nextHandoffState('requested', 'operator_took')).toBe('active')
    expect(nextHandoffState('requested', 'operator_closed')).toBe('resolved')
    expect(nextHandoffState('active', 'operator_closed')).toBe('resolved')
    expect(nextHandoffState('requested', 'visitor_requested')).toBeUndefined()
    expect(nextHandoffState('active', 'visitor_requested')).toBeUndefined()
    expect(nextHandoffState('none', 'operator_took')).toBeUndefined()
    expect(nextHandoffState('resolved', 'operator_took')).toBeUndefined()
    expect(nextHandoffState('none', 'operator_closed')).toBeUndefined()
  })
})

describe('handoff through the chat and the operator module', () => {
  it('runs none → requested → active → resolved → requested, with operator messages in the transcript', async () => {
    const s = await bootstrap(app)
    expect((await say(s, 'Can I talk to a human please?')).handoff.state).toBe('requested')
    expect((await listHandoffs(app.db, 'site_platform')).some((h) => h.sessionId === s.session_id && h.state === 'requested')).toBe(true)
    // Asking again while requested keeps the state and says the request is on its way.
    const pending = await say(s, 'Is a person coming?')
    expect(pending.handoff.state).toBe('requested')

    expect(await takeHandoff(app.db, s.session_id)).toBe('active')
    await postOperatorMessage(app.db, app.keyring, s.session_id, 'Hello, this is Max from the team.')
    // While an operator holds the conversation the assistant does not answer; the visitor's message is kept.
    const silent = await say(s, 'Great, thanks!')
    expect(silent.handoff.state).toBe('active')
    expect(silent.reply).toMatch(/team member is handling/)
    let messages = await transcript(s)
    expect(messages.slice(-2)).toEqual([
      expect.objectContaining({ role: 'operator', text: 'Hello, this is Max from the team.' }),
      expect.objectContaining({ role: 'visitor', text: 'Great, thanks!' }),
    ])
    expect(messages.filter((m) => m.role === 'operator')).toHaveLength(1)
    expect((await event(app, s, 'handoff_ack')).statusCode).toBe(200)

    expect(await resolveHandoff(app.db, s.session_id)).toBe('resolved')
    expect((await bootstrap(app, { session_id: s.session_id, session_token: s.session_token })).handoff).toEqual({ state: 'resolved' })
    expect((await say(s, 'What does the Lite plan cost?')).handoff.state).toBe('resolved')
    expect((await say(s, 'I need a person again')).handoff.state).toBe('requested')
    messages = await transcript(s)
    expect(messages.at(-1)?.role).toBe('assistant')
  })

  it('refuses operator moves that the state machine does not allow', async () => {
    const s = await bootstrap(app)
    await expect(takeHandoff(app.db, s.session_id)).rejects.toBeInstanceOf(HandoffTransitionError)
    await expect(resolveHandoff(app.db, s.session_id)).rejects.toBeInstanceOf(HandoffTransitionError)
    await expect(postOperatorMessage(app.db, app.keyring, s.session_id, 'too early')).rejects.toBeInstanceOf(HandoffTransitionError)
    await expect(takeHandoff(app.db, 'ag_missing')).rejects.toThrow(/session not found/)
    await say(s, 'talk to a human')
    await expect(postOperatorMessage(app.db, app.keyring, s.session_id, 'still requested')).rejects.toBeInstanceOf(HandoffTransitionError)
    expect(await takeHandoff(app.db, s.session_id)).toBe('active')
    await expect(takeHandoff(app.db, s.session_id)).rejects.toBeInstanceOf(HandoffTransitionError)
    await expect(postOperatorMessage(app.db, app.keyring, s.session_id, '   ')).rejects.toBeInstanceOf(RangeError)
  })

  it('lets only one of two operators take the same request', async () => {
    const s = await bootstrap(app)
    await say(s, 'talk to a human')
    const results = await Promise.allSettled([takeHandoff(app.db, s.session_id), takeHandoff(app.db, s.session_id)])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
  })

  it('keeps the state at none and offers the contact form on a site without handoff', async () => {
    const s = await bootstrap(app, { url: 'https://solo.example/' })
    const body = await say(s, 'Can I speak to a real person?')
    expect(body.handoff.state).toBe('none')
    expect(body.reply).toMatch(/isn't available/)
    expect(body.actions).toEqual([{ type: 'capture_lead', phase: 'suggested' }])
  })
})
