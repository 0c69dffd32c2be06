import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { makeAccount } from './helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'

// What the fuzz test found behind a working token: values a schema lets through but the database
// cannot take, a body the idempotency fingerprint could not read, and a change racing the
// DELETE of what it refers to. Each was a 500; each must be a clean 4xx. Over real HTTP.

const { app } = await buildTestApp({ env: { JOB_CONCURRENCY: '0' } })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''
const owner = await makeAccount(app, 'pro')
await withAssistantAddOn(app.db, owner.accountId)
const site = await createSite(app.db, {
  name: 'Edges',
  accountId: owner.accountId,
  hostname: 'edges.example',
  settings: { assistant: { enabled: true, capabilities: { handoff: true } } },
})

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...owner.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body }),
  })
  const text = await res.text()
  return { status: res.status, text, json: () => JSON.parse(text) as { code: string; detail: string } }
}

function expectRefused(res: { status: number; text: string; json: () => { code: string; detail: string } }, field: string) {
  expect(res.status, res.text).toBe(400)
  expect(res.json().code).toBe('validation_failed')
  expect(res.json().detail).toContain(`'${field}'`)
  expect(res.text).not.toMatch(/byte sequence|bigint|Infinity|surrogate|canonical/i)
}

describe('/v1 input the database cannot store', () => {
  it('a paging number the validator coerces to Infinity, or beyond 2^53, is 400 naming the parameter', async () => {
    expectRefused(await call('GET', '/v1/sites?page=1e309'), 'page')
    expectRefused(await call('GET', '/v1/sites?per_page=-1e309'), 'per_page')
    expectRefused(await call('GET', `/v1/sites/${site.id}/backlinks?page=1e%2B308`), 'page')
  })

  it('U+0000 in a path, query or body value is 400 naming it, and nothing is stored', async () => {
    expectRefused(await call('GET', `/v1/sites/${site.id}/audits/a%00b`), 'audit_id')
    expectRefused(await call('GET', '/v1/leads?since=2026-01-01T00:00:00Z%00'), 'since')
    expectRefused(await call('POST', '/v1/sites', JSON.stringify({ name: 'a\u0000b' })), 'name')
    expectRefused(
      await call('POST', `/v1/sites/${site.id}/pages`, JSON.stringify({ path: '/', title: 'Home', description: 'x\u0000' })),
      'description',
    )
    expect(await app.db.selectFrom('sites').select('id').where('account_id', '=', owner.accountId).execute()).toHaveLength(1)
  })

  it('a lone surrogate in a body is 400, not stored as U+FFFD', async () => {
    expectRefused(await call('POST', '/v1/sites', '{"name":"shop \\ud800"}'), 'name')
    expectRefused(await call('POST', '/v1/tokens', '{"name":"\\udfff","scopes":["read:sites"]}'), 'name')
  })

  it('an Idempotency-Key on a route that reads no body survives a body with a lone surrogate', async () => {
    const session = await bootstrap(app, { url: 'https://edges.example/' })
    expect((await chat(app, session, 'Can I talk to a human please?')).json().handoff.state).toBe('requested')
    const headers = { 'idempotency-key': 'take-1' }
    const first = await call('POST', `/v1/conversations/${session.session_id}/take`, '{"note":"\\ud800"}', headers)
    expect(first.status, first.text).toBe(200)
    const again = await call('POST', `/v1/conversations/${session.session_id}/take`, '{"note":"\\ud800"}', headers)
    expect(again.status, again.text).toBe(200)
    const other = await call('POST', `/v1/conversations/${session.session_id}/take`, '{"note":"\\udc00"}', headers)
    expect(other.status, other.text).toBe(422)
  })

  // Needs a second connection holding the DELETE open; the embedded database has one connection.
  it.runIf(onPostgres)('a rebuild racing the DELETE of its site answers 404, not 500', async () => {
    const doomed = await createSite(app.db, { name: 'Doomed', accountId: owner.accountId })
    const deleting = await app.db.startTransaction().execute()
    try {
      await deleting.deleteFrom('sites').where('id', '=', doomed.id).execute()
      // The route finds the site (the DELETE is not committed), then its insert waits on the row.
      const rebuild = call('POST', `/v1/sites/${doomed.id}/rebuild`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await deleting.commit().execute()
      const res = await rebuild
      expect(res.status, res.text).toBe(404)
      expect(res.json().code).toBe('not_found')
    } catch (error) {
      await deleting
        .rollback()
        .execute()
        .catch(() => undefined)
      throw error
    }
  })
})
