import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { makeTeam } from '../teams/helpers.ts'

/**
 * Idempotency-Key answers belong to the credential that sent the key, and are sealed at rest: a
 * stored answer may hold a secret shown once (a new API token, a webhook's signing secret).
 */
const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
const base = await app.listen({ port: 0, host: '127.0.0.1' })

const post = (path: string, authorization: string, key: string, body: object) =>
  fetch(`${base}/v1${path}`, {
    method: 'POST',
    headers: { authorization, 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe("another member's Idempotency-Key", () => {
  it("never replays the owner's token secret to a viewer who sends the same key and body", async () => {
    const team = await makeTeam(app, 'pro')
    const body = { name: 'deploy', scopes: ['read:sites'] }
    const owners = await post('/tokens', team.owner.api.authorization, 'shared-key', body)
    expect(owners.status).toBe(201)
    const ownersToken = (await owners.json()) as { id: string; token: string; user_id: string }
    expect(ownersToken.user_id).toBe(team.owner.userId)

    const viewers = await post('/tokens', team.viewer.api.authorization, 'shared-key', body)
    expect(viewers.headers.get('idempotent-replayed')).toBeNull()
    const answer = (await viewers.json()) as { id?: string; token?: string; user_id?: string }
    // The viewer's call ran as their own: a token of their own (it acts as the viewer), never the owner's.
    expect(answer.token).not.toBe(ownersToken.token)
    expect(answer.id).not.toBe(ownersToken.id)
    expect(answer.user_id).toBe(team.viewer.userId)
  })

  it("never replays the owner's rotated secret to another member, and the owner may not rotate another member's token", async () => {
    const team = await makeTeam(app, 'pro')
    const rotated = await post(`/tokens/${team.owner.tokenId}/rotate`, team.owner.api.authorization, 'rotate-key', { grace_seconds: 0 })
    expect(rotated.status).toBe(200)
    const secret = ((await rotated.json()) as { token: string }).token

    // The editor sends the owner's key and body: the owner's token is not theirs to find.
    const editors = await post(`/tokens/${team.owner.tokenId}/rotate`, team.editor.api.authorization, 'rotate-key', { grace_seconds: 0 })
    expect(editors.status).toBe(404)
    expect(editors.headers.get('idempotent-replayed')).toBeNull()
    expect(JSON.stringify(await editors.json())).not.toContain(secret)

    // An owner may revoke another member's token, not rotate it (the new secret would act as that member).
    const owner = { authorization: `Bearer ${secret}` }
    const refused = await post(`/tokens/${team.editor.tokenId}/rotate`, owner.authorization, 'rotate-editor', {})
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ code: 'forbidden' })
    const revoked = await fetch(`${base}/v1/tokens/${team.editor.tokenId}`, { method: 'DELETE', headers: owner })
    expect(revoked.status).toBe(204)
  })

  it('gives a caller whose role no longer allows the call the refusal, not the stored answer', async () => {
    const team = await makeTeam(app, 'pro')
    const site = await post('/sites', team.editor.api.authorization, 'site-key', { name: 'Bakery' })
    expect(site.status).toBe(201)
    await app.db
      .updateTable('account_members')
      .set({ role: 'viewer' })
      .where('account_id', '=', team.accountId)
      .where('user_id', '=', team.editor.userId)
      .execute()
    // The frame reads roles again within a second.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const again = await post('/sites', team.editor.api.authorization, 'site-key', { name: 'Bakery' })
    expect(again.status).toBe(403)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    expect(await again.json()).toMatchObject({ code: 'role_required' })
  })
})

describe('stored answers at rest', () => {
  it('keeps no token or webhook secret in the clear, and still replays the answer byte for byte', async () => {
    const team = await makeTeam(app, 'pro')
    const first = await post('/tokens', team.owner.api.authorization, 'sealed-key', { name: 'ci', scopes: ['read:sites'] })
    const firstBody = await first.text()
    const secret = (JSON.parse(firstBody) as { token: string }).token
    const hook = await post('/webhooks', team.owner.api.authorization, 'hook-key', {
      url: 'http://127.0.0.1:9/in',
      event_types: ['lead.received'],
    })
    expect(hook.status).toBe(201)
    const whsec = ((await hook.json()) as { secret: string }).secret
    expect(whsec).toMatch(/^whsec_/)

    const rows = await app.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', team.accountId).execute()
    expect(rows).toHaveLength(2)
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(secret)
    expect(stored).not.toContain(whsec)
    expect(stored).not.toContain('whsec_')
    for (const row of rows) expect(row.body).toMatch(/^v1\./)

    const replay = await post('/tokens', team.owner.api.authorization, 'sealed-key', { name: 'ci', scopes: ['read:sites'] })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(await replay.text()).toBe(firstBody)
  })
})

describe('GraphQL answers', () => {
  it('are never stored by a shared cache: an authenticated GET carries Cache-Control private, no-store', async () => {
    const team = await makeTeam(app, 'pro')
    const query = encodeURIComponent('{ viewer { plan } }')
    const res = await fetch(`${base}/v1/graphql?query=${query}`, { headers: team.owner.api })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('private, no-store')
  })
})
