import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { postRecordKey } from '../../src/domain/social/publish.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startFakeBluesky } from '../helpers/fake-bluesky.ts'
import { startFakeMastodon } from '../helpers/fake-mastodon.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { until } from '../helpers/polling.ts'

const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
const mastodon = await startFakeMastodon('mastodon-token-123')
const bluesky = await startFakeBluesky('shop.bsky.social', 'app-pass-word-1234')

type Json = Record<string, any>
const call = (account: TestAccount, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Json, headers: Record<string, string> = {}) =>
  app.inject({ method, url, headers: { ...account.headers, ...headers }, ...(payload ? { payload } : {}) })

async function connect(account: TestAccount, body: Json) {
  const res = await call(account, 'POST', '/v1/social-accounts', body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as Json
}

async function posted(account: TestAccount, id: string) {
  return until(async () => {
    const body = (await call(account, 'GET', `/v1/social-posts/${id}`)).json() as Json
    return body.state !== 'scheduled' ? body : undefined
  })
}

describe('social accounts and posts', () => {
  it('publishes to Mastodon through its API and fires social.posted with the public URL', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const hook = (await call(account, 'POST', '/v1/webhooks', { url: receiver.url, event_types: ['social.posted'] })).json() as Json
    const social = await connect(account, {
      network: 'mastodon',
      server_url: `${mastodon.url}/`,
      handle: '@owner@example.social',
      access_token: 'mastodon-token-123',
    })
    expect(social).toEqual({
      id: expect.stringMatching(/^soc_/),
      network: 'mastodon',
      server_url: mastodon.url,
      handle: 'owner@example.social',
      created_at: expect.any(String),
    })
    const stored = await app.db.selectFrom('social_accounts').selectAll().where('id', '=', social.id).executeTakeFirstOrThrow()
    expect(JSON.stringify(stored)).not.toContain('mastodon-token-123')

    const res = await call(account, 'POST', '/v1/social-posts', {
      account_id: social.id,
      text: 'We launched our new site',
      link: 'https://shop.example/',
    })
    expect(res.statusCode, res.body).toBe(201)
    const done = await posted(account, (res.json() as Json).id)
    const status = mastodon.statuses.at(-1)!
    expect(status).toMatchObject({
      status: 'We launched our new site\n\nhttps://shop.example/',
      visibility: 'public',
      idempotencyKey: done.id,
    })
    expect(done).toMatchObject({ state: 'posted', url: `${mastodon.url}/@owner/${status.id}`, error: null })

    await receiver.waitFor(1)
    const request = receiver.requests[0]!
    const event = new Webhook(hook.secret).verify(request.body, request.headers as Record<string, string>) as Json
    expect(event).toMatchObject({ type: 'social.posted', data: { post_id: done.id, network: 'mastodon', url: done.url } })
  })

  it('publishes to Bluesky with a session, a post record under its own key and a link facet, and fires social.posted', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const hook = (await call(account, 'POST', '/v1/webhooks', { url: receiver.url, event_types: ['social.posted'] })).json() as Json
    const social = await connect(account, {
      network: 'bluesky',
      handle: 'shop.bsky.social',
      app_password: 'app-pass-word-1234',
      server_url: bluesky.url,
    })
    const site = await createSite(app.db, { name: 'Laden', accountId: account.accountId, defaultLocale: 'de', locales: ['de', 'en'] })
    const res = await call(account, 'POST', '/v1/social-posts', {
      account_id: social.id,
      site_id: site.id,
      text: 'Grüße aus dem Laden 👋',
      link: 'https://shop.example/de/',
    })
    const done = await posted(account, (res.json() as Json).id)
    const record = bluesky.records.at(-1)!
    // The record key is the post's own TID: the same on every try.
    expect(record.rkey).toBe(postRecordKey(done.id, new Date(done.scheduled_at)))
    expect(record.rkey).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/)
    expect(done).toMatchObject({ state: 'posted', url: `https://bsky.app/profile/shop.bsky.social/post/${record.rkey}` })
    expect(record.repo).toBe(bluesky.did)
    // The language is the site's default locale.
    expect(record.record.langs).toEqual(['de'])
    const text = record.record.text!
    const facet = (record.record.facets as Json[])[0]!
    expect(Buffer.from(text).subarray(facet.index.byteStart, facet.index.byteEnd).toString()).toBe('https://shop.example/de/')
    expect(facet.features[0]).toEqual({ $type: 'app.bsky.richtext.facet#link', uri: 'https://shop.example/de/' })

    const [request] = await receiver.waitFor(1)
    const event = new Webhook(hook.secret).verify(request!.body, request!.headers as Record<string, string>) as Json
    expect(event).toMatchObject({
      type: 'social.posted',
      data: {
        post_id: done.id,
        social_account_id: social.id,
        network: 'bluesky',
        handle: 'shop.bsky.social',
        site_id: site.id,
        url: done.url,
        text,
      },
    })
  })

  it('posts once to Bluesky when the answer to a write is lost and the job retries', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const hook = (await call(account, 'POST', '/v1/webhooks', { url: receiver.url, event_types: ['social.posted'] })).json() as Json
    const social = await connect(account, {
      network: 'bluesky',
      handle: 'shop.bsky.social',
      app_password: 'app-pass-word-1234',
      server_url: bluesky.url,
    })
    const before = { records: bluesky.records.length, writes: bluesky.state.writes }
    bluesky.state.dropNextWrites = 1
    const done = await posted(
      account,
      ((await call(account, 'POST', '/v1/social-posts', { account_id: social.id, text: 'Only once, please' })).json() as Json).id,
    )
    expect(bluesky.state.dropNextWrites).toBe(0)
    expect(done).toMatchObject({ state: 'posted', error: null })
    expect(bluesky.records.length - before.records).toBe(1)
    expect(bluesky.state.writes - before.writes).toBe(1)
    const record = bluesky.records.at(-1)!
    expect(record.record.text).toBe('Only once, please')
    // A post of no site declares no language.
    expect(record.record.langs).toBeUndefined()
    expect(done.url).toBe(`https://bsky.app/profile/shop.bsky.social/post/${record.rkey}`)
    expect((await app.db.selectFrom('social_posts').select('attempts').where('id', '=', done.id).executeTakeFirstOrThrow()).attempts).toBe(
      2,
    )

    const [request] = await receiver.waitFor(1)
    expect(new Webhook(hook.secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({
      type: 'social.posted',
      data: { post_id: done.id, url: done.url },
    })
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.requests).toHaveLength(1)
  })

  it('retries a failing instance, publishes once, and waits for the scheduled time', async () => {
    const account = await makeAccount(app)
    const social = await connect(account, {
      network: 'mastodon',
      server_url: mastodon.url,
      handle: 'owner',
      access_token: 'mastodon-token-123',
    })
    mastodon.state.failNext = 1
    const before = mastodon.statuses.length
    const retried = await posted(
      account,
      ((await call(account, 'POST', '/v1/social-posts', { account_id: social.id, text: 'Retried' })).json() as Json).id,
    )
    expect(retried.state).toBe('posted')
    expect(mastodon.statuses.length - before).toBe(1)

    const at = new Date(Date.now() + 1500)
    const scheduled = (
      await call(account, 'POST', '/v1/social-posts', { account_id: social.id, text: 'Later', scheduled_at: at.toISOString() })
    ).json() as Json
    await new Promise((r) => setTimeout(r, 700))
    expect((await call(account, 'GET', `/v1/social-posts/${scheduled.id}`)).json()).toMatchObject({ state: 'scheduled', url: null })
    const later = await posted(account, scheduled.id)
    expect(new Date(later.posted_at).getTime()).toBeGreaterThanOrEqual(at.getTime())
  })

  it('counts a link as Mastodon does, 23 characters however long, and the instance takes the post', async () => {
    const account = await makeAccount(app)
    const toot = await connect(account, {
      network: 'mastodon',
      server_url: mastodon.url,
      handle: 'owner',
      access_token: 'mastodon-token-123',
    })
    const longLink = `https://shop.example/${'p'.repeat(180)}`
    // 470 + 2 + 23 = 495, though the text with its link has 672 characters.
    const res = await call(account, 'POST', '/v1/social-posts', { account_id: toot.id, text: 'a'.repeat(470), link: longLink })
    expect(res.statusCode, res.body).toBe(201)
    expect(await posted(account, (res.json() as Json).id)).toMatchObject({ state: 'posted', error: null })
    expect(mastodon.statuses.at(-1)!.status).toBe(`${'a'.repeat(470)}\n\n${longLink}`)
    // A remote mention counts as its local part: 6 + 1 + 470 + 2 + 23 = 502 with the link.
    const over = await call(account, 'POST', '/v1/social-posts', {
      account_id: toot.id,
      text: `@owner@example.social ${'a'.repeat(470)}`,
      link: longLink,
    })
    expect(over.json()).toMatchObject({ status: 400, code: 'post_too_long' })
    expect(over.json().detail).toMatch(/502 characters .*every link counted as 23.* at most 500/)
    expect(
      (
        await call(account, 'POST', '/v1/social-posts', {
          account_id: toot.id,
          text: `@owner@example.social ${'a'.repeat(468)}`,
          link: longLink,
        })
      ).statusCode,
    ).toBe(201)
  })

  it('keeps a post refused by the network as failed, without retrying', async () => {
    const account = await makeAccount(app)
    const social = await connect(account, {
      network: 'bluesky',
      handle: 'shop.bsky.social',
      app_password: 'wrong-password',
      server_url: bluesky.url,
    })
    const failed = await posted(
      account,
      ((await call(account, 'POST', '/v1/social-posts', { account_id: social.id, text: 'Hello' })).json() as Json).id,
    )
    expect(failed).toMatchObject({ state: 'failed', url: null, error: expect.stringContaining('401') })
  })

  it('reads a social account with its ETag and disconnects it only when If-Match names it', async () => {
    const account = await makeAccount(app)
    const created = await call(account, 'POST', '/v1/social-accounts', {
      network: 'mastodon',
      server_url: mastodon.url,
      handle: 'owner',
      access_token: 'mastodon-token-123',
    })
    const social = created.json() as Json
    const read = await call(account, 'GET', `/v1/social-accounts/${social.id}`)
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json()).toEqual(social)
    const etag = read.headers['etag'] as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    // The tag of the 201 is the tag GET shows.
    expect(created.headers['etag']).toBe(etag)

    const stale = await call(account, 'DELETE', `/v1/social-accounts/${social.id}`, undefined, { 'if-match': '"stale"' })
    expect(stale.statusCode).toBe(412)
    expect(stale.json()).toMatchObject({ status: 412, code: 'precondition_failed' })
    expect((await call(account, 'GET', `/v1/social-accounts/${social.id}`)).statusCode).toBe(200)
    expect(await app.db.selectFrom('social_accounts').select('id').where('id', '=', social.id).executeTakeFirst()).toEqual({
      id: social.id,
    })

    expect(
      (await call(account, 'DELETE', `/v1/social-accounts/${social.id}`, undefined, { 'if-match': `"other", ${etag}` })).statusCode,
    ).toBe(204)
    expect((await call(account, 'GET', `/v1/social-accounts/${social.id}`)).json()).toMatchObject({ status: 404, code: 'not_found' })
    expect(await app.db.selectFrom('social_accounts').select('id').where('id', '=', social.id).executeTakeFirst()).toBeUndefined()
    // A deleted account is a 404, whatever If-Match says.
    expect((await call(account, 'DELETE', `/v1/social-accounts/${social.id}`, undefined, { 'if-match': etag })).statusCode).toBe(404)
  })

  it('refuses over-long posts, bad input and other accounts with clear 4xx', async () => {
    const account = await makeAccount(app)
    const stranger = await makeAccount(app)
    const toot = await connect(account, {
      network: 'mastodon',
      server_url: mastodon.url,
      handle: 'owner',
      access_token: 'mastodon-token-123',
    })
    const skeet = await connect(account, {
      network: 'bluesky',
      handle: 'shop.bsky.social',
      app_password: 'app-pass-word-1234',
      server_url: bluesky.url,
    })
    const tooLong = await call(account, 'POST', '/v1/social-posts', {
      account_id: toot.id,
      text: 'a'.repeat(480),
      link: 'https://shop.example/a-long-path',
    })
    expect(tooLong.statusCode).toBe(400)
    expect(tooLong.json()).toMatchObject({ code: 'post_too_long' })
    expect(tooLong.json().detail).toMatch(/at most 500/)
    // Bluesky counts every character of a link.
    expect(
      (
        await call(account, 'POST', '/v1/social-posts', {
          account_id: skeet.id,
          text: 'a'.repeat(100),
          link: `https://shop.example/${'p'.repeat(180)}`,
        })
      ).json(),
    ).toMatchObject({ status: 400, code: 'post_too_long' })
    expect((await call(account, 'POST', '/v1/social-posts', { account_id: skeet.id, text: '👋'.repeat(301) })).json()).toMatchObject({
      status: 400,
      code: 'post_too_long',
    })
    expect((await call(account, 'POST', '/v1/social-posts', { account_id: skeet.id, text: '👋'.repeat(300) })).statusCode).toBe(201)
    expect((await call(account, 'POST', '/v1/social-posts', { account_id: toot.id, text: '' })).json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
    })
    expect(
      (await call(account, 'POST', '/v1/social-posts', { account_id: toot.id, text: 'x', link: 'javascript:alert(1)' })).json(),
    ).toMatchObject({ status: 400, code: 'validation_failed' })
    expect((await call(account, 'POST', '/v1/social-accounts', { network: 'twitter', handle: 'x', password: 'y' })).json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
    })
    expect(
      (
        await call(account, 'POST', '/v1/social-accounts', {
          network: 'mastodon',
          server_url: 'http://169.254.169.254',
          handle: 'x',
          access_token: 'y',
        })
      ).json(),
    ).toMatchObject({ status: 400, code: 'validation_failed' })
    expect((await call(stranger, 'POST', '/v1/social-posts', { account_id: toot.id, text: 'Mine now' })).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    })
    expect(
      (await call(account, 'POST', '/v1/social-posts', { account_id: toot.id, text: 'x', site_id: 'site_unknown' })).json(),
    ).toMatchObject({ status: 404 })
    expect((await call(stranger, 'DELETE', `/v1/social-accounts/${toot.id}`)).statusCode).toBe(404)
    expect((await call(stranger, 'GET', `/v1/social-accounts/${toot.id}`)).statusCode).toBe(404)
    expect((await call(stranger, 'GET', '/v1/social-accounts')).json().meta.total).toBe(0)
    expect((await call(account, 'DELETE', `/v1/social-accounts/${toot.id}`)).statusCode).toBe(204)
  })
})

describe('Bluesky sessions', () => {
  async function bskyAccount() {
    const pds = await startFakeBluesky('shop.bsky.social', 'app-pass-word-1234')
    const account = await makeAccount(app)
    const social = await connect(account, {
      network: 'bluesky',
      handle: 'shop.bsky.social',
      app_password: 'app-pass-word-1234',
      server_url: pds.url,
    })
    const post = async (text: string) =>
      posted(account, ((await call(account, 'POST', '/v1/social-posts', { account_id: social.id, text })).json() as Json).id)
    return { pds, account, social, post }
  }

  it('creates one session per account and reuses it for every post, kept sealed', async () => {
    const { pds, social, post } = await bskyAccount()
    // createSession is rate-limited per handle: a second call would be refused.
    pds.state.createSessionLimit = 1
    for (const text of ['One', 'Two', 'Three']) expect(await post(text)).toMatchObject({ state: 'posted', error: null })
    expect(pds.records.map((r) => r.record.text)).toEqual(['One', 'Two', 'Three'])
    expect(pds.state).toMatchObject({ createSessions: 1, refreshSessions: 0, refusedWrites: 0 })
    const row = await app.db.selectFrom('social_accounts').select('session_sealed').where('id', '=', social.id).executeTakeFirstOrThrow()
    expect(row.session_sealed).toEqual(expect.any(String))
    // No JWT in clear (header.payload.signature); "eyJ" alone may well occur in random ciphertext.
    expect(row.session_sealed).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./)
  })

  it('asks for one session when several posts of a new account go out at once', async () => {
    const { pds, social, account } = await bskyAccount()
    const at = new Date(Date.now() + 1000).toISOString()
    const ids = await Promise.all(
      ['A', 'B', 'C'].map(
        async (text) =>
          ((await call(account, 'POST', '/v1/social-posts', { account_id: social.id, text, scheduled_at: at })).json() as Json)
            .id as string,
      ),
    )
    for (const id of ids) expect(await posted(account, id)).toMatchObject({ state: 'posted' })
    expect(pds.records.map((r) => r.record.text).sort()).toEqual(['A', 'B', 'C'])
    expect(pds.state.createSessions).toBe(1)
  })

  it('refreshes an access JWT about to expire before writing, and one the server says expired after a refused write', async () => {
    const { pds, post } = await bskyAccount()
    pds.state.accessTtlSeconds = 30
    await post('First')
    expect(pds.state).toMatchObject({ createSessions: 1, refreshSessions: 0 })
    // 30 seconds left is less than the minute kept in hand: renewed before the write.
    await post('Second')
    expect(pds.state).toMatchObject({ createSessions: 1, refreshSessions: 1, refusedWrites: 0 })

    pds.state.accessTtlSeconds = 7200
    await post('Third')
    expect(pds.state).toMatchObject({ createSessions: 1, refreshSessions: 2, refusedWrites: 0 })
    // The server takes the token to have expired though its exp says otherwise (a clock behind).
    pds.expireAccessTokens()
    expect(await post('Fourth')).toMatchObject({ state: 'posted', error: null })
    expect(pds.state).toMatchObject({ createSessions: 1, refreshSessions: 3, refusedWrites: 1 })
    expect(pds.records.map((r) => r.record.text)).toEqual(['First', 'Second', 'Third', 'Fourth'])
  })

  it('creates a new session only when the refresh JWT is refused too', async () => {
    const { pds, post } = await bskyAccount()
    await post('Before')
    pds.expireAccessTokens()
    pds.expireRefreshTokens()
    expect(await post('After')).toMatchObject({ state: 'posted', error: null })
    expect(pds.state).toMatchObject({ createSessions: 2, refreshSessions: 1, refusedWrites: 1 })
  })
})
