import { createClient, type Client } from 'graphql-ws'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { changeRole, removeMember } from '../../src/domain/accounts/members.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import type { App } from '../../src/app.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'
import { onPostgres } from '../helpers/database.ts'
import { listeningApp, oauthToken, siteWithContent } from '../graphql/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'

/**
 * A GraphQL `events` subscription follows its member: removed from the account, or no longer
 * allowed the events (an owner demoted), the socket is closed with 4403 and the reason within a
 * second of the change's commit, on every instance.
 */
const { app, ws, databaseUrl } = await listeningApp()

const EVENTS = 'subscription { events { type data } }'
/** The bound: a second after the commit, plus what a loaded test machine adds to a socket's close. */
const BOUND_MS = 1000
const SLACK_MS = 500

interface Closed {
  code: number
  reason: string
}

function subscribe(url: string, authorization: string) {
  let closed: (event: Closed) => void = () => {}
  const closing = new Promise<Closed>((resolve) => (closed = resolve))
  const client: Client = createClient({
    url,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    connectionParams: { authorization },
    on: { closed: (event) => closed({ code: (event as Closed).code, reason: String((event as Closed).reason) }) },
  })
  cleanUpAfter(() => client.dispose())
  const received: unknown[] = []
  const events = client.iterate({ query: EVENTS })[Symbol.asyncIterator]()
  return { closing, received, events }
}

let leads = 0
const lead = (db: App['db'], siteId: string) =>
  insertLead(db, app.keyring, {
    siteId,
    sessionId: null,
    source: 'contact_form',
    email: `visitor-${++leads}@example.com`,
    name: 'Ada',
    note: 'Please call me back',
    consent: { version: '1', locale: 'en', digest: 'd'.repeat(64), acceptedAt: new Date() },
  })

/** Waits until the subscription delivers: leads are recorded until one arrives. */
async function listening(events: AsyncIterator<unknown>, siteId: string) {
  const first = events.next()
  for (let tries = 0; tries < 40; tries++) {
    await lead(app.db, siteId)
    if (await Promise.race([first.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 250))])) return
  }
  throw new Error('the subscription never delivered')
}

/** A team whose editor is made a second owner, subscribed with an OAuth access token as a person's client gets one. */
async function twoOwners() {
  const team = await makeTeam(app, 'pro')
  await changeRole(app.db, team.accountId, team.editor.userId, 'owner')
  const { token } = await oauthToken(app, team.accountId, ['manage:webhooks', 'read:sites'], undefined, 600, team.editor.userId)
  const { site } = await siteWithContent(app, team.accountId, 0, 0)
  return { team, token, site }
}

describe('GraphQL events subscriptions and membership', () => {
  it('closes the socket of a removed member (OAuth token) within a second, with the reason', async () => {
    const { team, token, site } = await twoOwners()
    const { closing, events } = subscribe(ws, `Bearer ${token}`)
    await listening(events, site.id)
    await removeMember(app.db, team.accountId, team.editor.userId)
    const removedAt = Date.now()
    const closed = await closing
    expect(Date.now() - removedAt).toBeLessThan(BOUND_MS + SLACK_MS)
    expect(closed.code).toBe(4403)
    expect(closed.reason).toMatch(/no longer belongs/)
  })

  it('closes the socket of an owner demoted to viewer within a second', async () => {
    const { team, token, site } = await twoOwners()
    const { closing, events } = subscribe(ws, `Bearer ${token}`)
    await listening(events, site.id)
    await changeRole(app.db, team.accountId, team.editor.userId, 'viewer')
    const demotedAt = Date.now()
    const closed = await closing
    expect(Date.now() - demotedAt).toBeLessThan(BOUND_MS + SLACK_MS)
    expect(closed).toMatchObject({ code: 4403, reason: expect.stringContaining('is a viewer; only an owner') })
  })

  it('closes an API token subscription when its member is demoted, and keeps the others open', async () => {
    const { team, site } = await twoOwners()
    const demoted = subscribe(ws, team.editor.api.authorization)
    const kept = subscribe(ws, team.owner.api.authorization)
    await listening(demoted.events, site.id)
    await listening(kept.events, site.id)
    await changeRole(app.db, team.accountId, team.editor.userId, 'editor')
    expect(await demoted.closing).toMatchObject({ code: 4403 })
    // The owner's socket still delivers.
    const next = kept.events.next()
    await lead(app.db, site.id)
    expect(await next).toMatchObject({ done: false })
  })

  it.runIf(onPostgres)('closes a socket on instance B within a second of a removal committed through instance A', async () => {
    const other = await listeningApp({ databaseUrl })
    const { team, token, site } = await twoOwners()
    const { closing, events } = subscribe(other.ws, `Bearer ${token}`)
    await listening(events, site.id)
    await removeMember(app.db, team.accountId, team.editor.userId)
    const removedAt = Date.now()
    expect(await closing).toMatchObject({ code: 4403 })
    expect(Date.now() - removedAt).toBeLessThan(BOUND_MS + SLACK_MS)
  })
})
