import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { onPostgres } from '../helpers/database.ts'
import { get, listeningApp, makeAccount, post } from './helpers.ts'

const { app, endpoint, databaseUrl } = await listeningApp()
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('GraphQL automatic persisted queries', () => {
  it('answers an unknown hash PERSISTED_QUERY_NOT_FOUND, stores the query sent with its hash, then runs it by hash over POST and GET', async () => {
    const owner = await makeAccount(app, 'pro')
    const query = `query Persisted { viewer { plan } sites(first: 3) { totalCount } } # ${Math.random()}`
    const persistedQuery = { version: 1, sha256Hash: sha256(query) }

    const unknown = await post(endpoint, { extensions: { persistedQuery } }, owner.headers)
    expect(unknown.status).toBe(200)
    expect(unknown.body.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }])
    expect(unknown.headers.get('cache-control')).toBe('private, no-store')

    const registered = await post(endpoint, { query, extensions: { persistedQuery } }, owner.headers)
    expect(registered.body.data).toEqual({ viewer: { plan: 'pro' }, sites: { totalCount: 0 } })
    expect((await sql`select query from graphql_persisted_queries where hash = ${persistedQuery.sha256Hash}`.execute(app.db)).rows).toEqual(
      [{ query }],
    )

    const byHash = await post(endpoint, { extensions: { persistedQuery } }, owner.headers)
    expect(byHash.body.data).toEqual(registered.body.data)
    const overGet = await get(endpoint, { extensions: { persistedQuery } }, owner.headers)
    expect(overGet.status).toBe(200)
    expect(overGet.body.data).toEqual(registered.body.data)
    expect(overGet.headers.get('vary')).toContain('Authorization')

    const wrong = await post(endpoint, { query: '{ viewer { id } }', extensions: { persistedQuery } }, owner.headers)
    expect(wrong.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'persisted_query_mismatch' })
    const oldVersion = await post(
      endpoint,
      { extensions: { persistedQuery: { version: 2, sha256Hash: persistedQuery.sha256Hash } } },
      owner.headers,
    )
    expect(oldVersion.body.errors[0].extensions.code).toBe('BAD_REQUEST')

    // Still the frame's: no token, no answer.
    expect((await get(endpoint, { extensions: { persistedQuery } })).status).toBe(401)
  })

  it.runIf(onPostgres)('runs by hash on another instance of the same database', async () => {
    const owner = await makeAccount(app, 'pro')
    const query = `query Elsewhere { viewer { id } } # ${Math.random()}`
    const persistedQuery = { version: 1, sha256Hash: sha256(query) }
    expect((await post(endpoint, { query, extensions: { persistedQuery } }, owner.headers)).body.data).toEqual({
      viewer: { id: owner.accountId },
    })
    const other = await listeningApp({ databaseUrl })
    const elsewhere = await get(other.endpoint, { extensions: { persistedQuery } }, owner.headers)
    expect(elsewhere.body.data).toEqual({ viewer: { id: owner.accountId } })
  })
})
