import { createClient, type Client } from 'graphql-ws'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { revokeApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { INIT_WAIT_MS, RECHECK_MS } from '../../src/graphql/subscriptions.ts'
import type { App } from '../../src/app.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'
import { onPostgres } from '../helpers/database.ts'
import { afterAuditFlush, listeningApp, makeAccount, siteWithContent } from './helpers.ts'

const { app, ws, databaseUrl } = await listeningApp()

interface Closed {
  code: number
  reason: string
}

/** A graphql-ws client (protocol graphql-transport-ws) with the token in connection_init. */
function connect(url: string, authorization: string | undefined) {
  let closed: (event: Closed) => void = () => {}
  const closing = new Promise<Closed>((resolve) => (closed = resolve))
  const client: Client = createClient({
    url,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // Refusals are what several tests expect; they are read from `closing`.
    onNonLazyError: () => {},
    connectionParams: authorization === undefined ? {} : { authorization },
    on: { closed: (event) => closed({ code: (event as Closed).code, reason: String((event as Closed).reason) }) },
  })
  cleanUpAfter(() => client.dispose())
  return { client, closing }
}

const EVENTS = 'subscription Events($types: [String!]) { events(types: $types) { id type createdAt data } }'

const lead = (db: App['db'], siteId: string, email: string) =>
  insertLead(db, app.keyring, {
    siteId,
    sessionId: null,
    source: 'contact_form',
    email,
    name: 'Ada',
    consent: { version: '1', locale: 'en', digest: 'd'.repeat(64), acceptedAt: new Date() },
  })

let probes = 0
/** A lead of its own each time (the same email twice from one session is one lead, and fires once). */
const probe = (siteId: string) => () => lead(app.db, siteId, `probe-${++probes}@example.com`)

/**
 * The next event the iterator yields after the subscription is live: a probe event is recorded
 * until one arrives (the server registers the subscription a moment after the client sent it),
 * then `emit` runs and the first message that is not a probe is answered.
 */
async function nextAfterListening(events: AsyncIterator<any>, probe: () => Promise<unknown>, emit: () => Promise<unknown>) {
  let first: Promise<IteratorResult<any>> = events.next()
  for (let tries = 0; ; tries++) {
    await probe()
    const arrived = await Promise.race([first, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 250))])
    if (arrived) break
    if (tries > 40) throw new Error('the subscription never delivered a probe event')
  }
  await emit()
  for (;;) {
    const { value } = await events.next()
    if (value.errors || !String(value.data.events.data.email).startsWith('probe-')) return value
  }
}

describe('GraphQL subscriptions over WebSocket (graphql-transport-ws)', () => {
  it("streams the account's events as they commit, with the webhook data, of the types asked for", async () => {
    const owner = await makeAccount(app, 'pro')
    const stranger = await makeAccount(app, 'pro')
    const { site } = await siteWithContent(app, owner.accountId, 0, 0)
    const { site: strangers } = await siteWithContent(app, stranger.accountId, 0, 0)
    const { client } = connect(ws, owner.headers.authorization)

    const events = client.iterate({ query: EVENTS, variables: { types: ['lead.received'] } })[Symbol.asyncIterator]()
    const message = await nextAfterListening(events, probe(site.id), async () => {
      await lead(app.db, strangers.id, 'someone-else@example.com')
      await recordEvent(app.db, { accountId: owner.accountId, siteId: site.id, type: 'site.published', data: { site_id: site.id } })
      await lead(app.db, site.id, 'grace@example.com')
    })
    expect(message.data.events).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'lead.received',
      data: { site_id: site.id, email: 'grace@example.com', name: 'Ada', source: 'contact_form' },
    })
    expect(new Date(message.data.events.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000)
    await events.return?.()

    await afterAuditFlush()
    const audit = await app.db
      .selectFrom('audit_log')
      .select(['operation', 'method', 'status'])
      .where('account_id', '=', owner.accountId)
      .execute()
    expect(audit).toEqual([{ operation: 'graphql.Events', method: 'GET', status: 101 }])
  })

  it('closes a connection without a valid token with 4403, and refuses events below pro or without manage:webhooks', {
    timeout: 60_000,
  }, async () => {
    const none = connect(ws, undefined)
    expect(await none.closing).toMatchObject({ code: 4403, reason: expect.stringContaining('UNAUTHENTICATED') })
    const bad = connect(ws, 'Bearer wps_tok_nope_nope')
    expect(await bad.closing).toMatchObject({ code: 4403, reason: expect.stringContaining('UNAUTHENTICATED') })
    const free = await makeAccount(app, 'free')
    expect(await connect(ws, free.headers.authorization).closing).toMatchObject({ code: 4403, reason: expect.stringContaining('plan') })

    const plus = await makeAccount(app, 'plus')
    const onPlus = connect(ws, plus.headers.authorization).client
    await expect(onPlus.iterate({ query: EVENTS })[Symbol.asyncIterator]().next()).rejects.toEqual([
      expect.objectContaining({ extensions: { code: 'FORBIDDEN', reason: 'plan_required' } }),
    ])

    const readOnly = await makeAccount(app, 'pro', ['read:sites'])
    const readOnlyConnection = connect(ws, readOnly.headers.authorization)
    const noScope = readOnlyConnection.client
    // Open through a few rechecks first: a connection never allowed the events is refused per
    // subscription, not closed by the recheck (which only closes one that lost its access).
    await new Promise((resolve) => setTimeout(resolve, RECHECK_MS * 4))
    expect(await Promise.race([readOnlyConnection.closing, 'still open'])).toBe('still open')
    await expect(noScope.iterate({ query: EVENTS })[Symbol.asyncIterator]().next()).rejects.toEqual([
      expect.objectContaining({ extensions: { code: 'FORBIDDEN', reason: 'insufficient_scope' } }),
    ])

    // A socket that never says connection_init is dropped.
    const silent = new WebSocket(ws, 'graphql-transport-ws')
    const openedAt = Date.now()
    await new Promise((resolve) => silent.once('close', resolve))
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(INIT_WAIT_MS - 1000)

    const pro = await makeAccount(app, 'pro')
    const unknownType = connect(ws, pro.headers.authorization).client
    await expect(
      unknownType
        .iterate({ query: EVENTS, variables: { types: ['lead.lost'] } })
        [Symbol.asyncIterator]()
        .next(),
    ).rejects.toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'types' }) })])
  })

  it(`closes a subscription within a minute of its token's revocation (it is looked at every ${RECHECK_MS / 1000} s)`, {
    timeout: 90_000,
  }, async () => {
    const owner = await makeAccount(app, 'pro')
    const { site } = await siteWithContent(app, owner.accountId, 0, 0)
    const { client, closing } = connect(ws, owner.headers.authorization)
    const events = client.iterate({ query: EVENTS })[Symbol.asyncIterator]()
    await nextAfterListening(events, probe(site.id), () => lead(app.db, site.id, 'before@example.com'))
    const revokedAt = Date.now()
    await revokeApiToken(app.db, owner.tokenId)
    const closed = await closing
    expect(closed).toMatchObject({ code: 4403, reason: expect.stringContaining('revoked') })
    expect(Date.now() - revokedAt).toBeLessThan(60_000)
  })

  it.runIf(onPostgres)('delivers to a client on instance B what is committed through instance A', async () => {
    const other = await listeningApp({ databaseUrl })
    const owner = await makeAccount(app, 'pro')
    const { site } = await siteWithContent(app, owner.accountId, 0, 0)
    // The client listens on B; every event is committed through A's connections.
    const { client } = connect(other.ws, owner.headers.authorization)
    const events = client.iterate({ query: EVENTS })[Symbol.asyncIterator]()
    const message = await nextAfterListening(events, probe(site.id), () => lead(app.db, site.id, 'across@example.com'))
    expect(message.data.events).toMatchObject({ type: 'lead.received', data: { email: 'across@example.com' } })
  })
})
