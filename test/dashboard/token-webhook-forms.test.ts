import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

// Regression: the forms of API tokens and webhooks answered a generic 400 page in the schema's
// words ("The field 'expires_in_days' is not in the expected format"), the form and the input gone.
describe('the token and webhook forms refuse in plain words next to each field, the input kept', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'forms-owner@example.com')
  await updateAccount(app.db, owner.user.accountId, { plan: 'pro' })
  const { cookie, form, audited } = await dashboardBrowser(app, owner, '/app/tokens')
  const errorOf = (body: string, field: string) =>
    new RegExp(`id="f-${field}-error"><span class="sr-only">Error: </span>([^<]*)<`).exec(body)?.[1]

  it('a new token with an empty name, no scope and a wrong expiry', async () => {
    for (const days of ['-5', 'soon', '0', '99999']) {
      const res = await post(app, '/app/tokens', cookie, form({ name: '', expires_in_days: days }))
      expect(res.statusCode, days).toBe(400)
      expect(res.body).toContain('There are 3 problems')
      expect(errorOf(res.body, 'name')).toBe('Fill this in.')
      expect(errorOf(res.body, 'scopes')).toBe('Choose at least one scope.')
      expect(errorOf(res.body, 'expires_in_days')).toMatch(/^Enter a whole number of days from 1 to 3650/)
      expect(res.body).toMatch(new RegExp(`<input id="f-expires_in_days" name="expires_in_days"[^>]* value="${days}">`))
      expect(res.body).not.toContain('expected format')
    }
    const long = 'N'.repeat(101)
    const res = await post(app, '/app/tokens', cookie, form({ name: long, scopes: ['read:sites', 'write:pages'], expires_in_days: '30' }))
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body, 'name')).toBe('Use at most 100 characters.')
    expect(res.body).toContain(`value="${long}"`)
    expect(res.body).toContain('value="read:sites" checked')
    expect(res.body).toContain('value="write:pages" checked')
    expect(res.body).not.toContain('value="manage:leads" checked')
    expect(res.body).toContain('value="30"')
    expect(res.body).not.toContain('id="secret"')
    expect(await app.db.selectFrom('api_tokens').select('id').where('account_id', '=', owner.user.accountId).execute()).toEqual([])

    const ok = await post(app, '/app/tokens', cookie, form({ name: 'Zapier', scopes: 'read:sites', expires_in_days: '30' }))
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.body).toContain('id="secret"')
    expect(await audited('tokens.create')).toEqual([400, 400, 400, 400, 400, 200])
  })

  it('a new webhook endpoint with an empty, malformed or too long URL', async () => {
    const empty = await post(app, '/app/webhooks', cookie, form({ url: '', description: 'CRM <sync>', event_types: 'lead.received' }))
    expect(empty.statusCode).toBe(400)
    expect(errorOf(empty.body, 'url')).toBe('Fill this in.')
    expect(empty.body).toContain('value="CRM &lt;sync&gt;"')
    expect(empty.body).toContain('value="lead.received" checked')

    const wrong = await post(app, '/app/webhooks', cookie, form({ url: 'not a url' }))
    expect(wrong.statusCode).toBe(400)
    expect(errorOf(wrong.body, 'url')).toBe('Enter a full web address starting with https://, for example https://example.com/hooks.')
    expect(wrong.body).toContain('value="not a url"')

    const long = `https://example.com/${'a'.repeat(500)}`
    const tooLong = await post(app, '/app/webhooks', cookie, form({ url: long }))
    expect(tooLong.statusCode).toBe(400)
    expect(errorOf(tooLong.body, 'url')).toBe('Use at most 500 characters.')
    expect(tooLong.body).toContain(`value="${long}"`)
    expect(tooLong.body).not.toContain('expected format')
    expect(await app.db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', owner.user.accountId).execute()).toEqual([])
    expect(await audited('webhooks.create')).toEqual([400, 400, 400])
  })
})
