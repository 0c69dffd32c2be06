import { describe, expect, it } from 'vitest'
import { Browser, json, latestCode, startLiveApp } from './helpers.ts'

const { app, base, logs } = await startLiveApp({ captureLogs: true })

describe('logs of the identity flows', () => {
  it('never carry claim tokens, assertions, access tokens, user codes, sign-in codes or email addresses', async () => {
    const reg = await json(
      await fetch(`${base}/agent/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":"anonymous"}',
      }),
    )
    const token = await json(
      await fetch(`${base}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: reg.identity_assertion }),
      }),
    )
    // A refused request too: its reason is logged.
    await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'urn:presence:agent-auth:grant-type:claim', claim_token: reg.claim_token }),
    })
    const { claim_attempt: attempt } = await json(
      await fetch(`${base}/agent/identity/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ claim_token: reg.claim_token, email: 'secret.person@example.com' }),
      }),
    )
    const person = new Browser(base)
    const confirm = await person.signIn(
      app,
      'secret.person@example.com',
      await person.submit(await person.get('/agent/identity/verify'), { user_code: attempt.user_code }),
    )
    await person.submit(confirm, {}, { button: ['decision', 'approve'] })
    const code = await latestCode(app, 'secret.person@example.com')
    await fetch(`${base}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: token.access_token }) })
    await new Promise((resolve) => setTimeout(resolve, 100))

    const text = logs.map((line) => JSON.stringify(line)).join('\n')
    expect(logs.length).toBeGreaterThan(8)
    for (const secret of [
      reg.claim_token,
      reg.identity_assertion,
      token.access_token,
      attempt.user_code,
      attempt.user_code.replace('-', ''),
      'secret.person@example.com',
      `is ${code}`,
    ]) {
      expect(text).not.toContain(secret)
    }
    expect(text).toContain('mail stored in the outbox')
  })
})
