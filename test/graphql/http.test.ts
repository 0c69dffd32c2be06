import { readFileSync } from 'node:fs'
import { buildClientSchema, getIntrospectionQuery, printSchema, buildSchema } from 'graphql'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { get, listeningApp, makeAccount, post } from './helpers.ts'

const { app, endpoint, origin } = await listeningApp()
const sdl = readFileSync(new URL('../../src/graphql/schema.graphql', import.meta.url), 'utf8')

describe('GraphQL over HTTP', () => {
  it('serves the schema file of the repository, unchanged and without credentials, and introspection agrees with it', async () => {
    const res = await fetch(`${origin}/v1/graphql/schema.graphql`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await res.text()).toBe(sdl)

    const owner = await makeAccount(app, 'plus')
    const introspection = await post(endpoint, { query: getIntrospectionQuery({ schemaDescription: true }) }, owner.headers)
    expect(introspection.status).toBe(200)
    expect(printSchema(buildClientSchema(introspection.body.data))).toBe(printSchema(buildSchema(sdl)))
  })

  it('answers application/graphql-response+json when accepted, application/json otherwise, with the status each calls for', async () => {
    const owner = await makeAccount(app, 'plus')
    const query = '{ viewer { plan } }'
    const modern = await post(
      endpoint,
      { query },
      { ...owner.headers, accept: 'application/graphql-response+json, application/json;q=0.9' },
    )
    expect(modern.status).toBe(200)
    expect(modern.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8')
    expect(modern.body).toEqual({ data: { viewer: { plan: 'plus' } }, extensions: { cost: { requested: 1, limit: 1000 } } })
    const legacy = await post(endpoint, { query }, { ...owner.headers, accept: 'application/json' })
    expect(legacy.headers.get('content-type')).toMatch(/^application\/json/)

    // A document that cannot run: 400 for the new media type, 200 for application/json (GraphQL over HTTP).
    const broken = '{ viewer { plan '
    const modernBroken = await post(endpoint, { query: broken }, { ...owner.headers, accept: 'application/graphql-response+json' })
    expect(modernBroken.status).toBe(400)
    expect(modernBroken.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED' })
    expect(modernBroken.body).not.toHaveProperty('data')
    const legacyBroken = await post(endpoint, { query: broken }, owner.headers)
    expect(legacyBroken.status).toBe(200)
    expect(legacyBroken.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED' })

    const unknownField = await post(endpoint, { query: '{ viewer { password } }' }, owner.headers)
    expect(unknownField.body.errors[0]).toMatchObject({
      message: 'Cannot query field "password" on type "Account".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    })
    const badVariable = await post(
      endpoint,
      { query: 'query Q($n: Int) { sites(first: $n) { totalCount } }', variables: { n: 'ten' } },
      owner.headers,
    )
    expect(badVariable.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' })
    const noQuery = await post(endpoint, { variables: {} }, owner.headers)
    expect(noQuery.body.errors).toEqual([{ message: 'The request has no query', extensions: { code: 'BAD_REQUEST' } }])
    const notJson = await fetch(endpoint, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      body: '{"query": ',
    })
    expect(notJson.status).toBe(400)
    expect(((await notJson.json()) as any).errors[0].extensions.code).toBe('BAD_REQUEST')
  })

  it('runs queries sent with GET, and refuses a mutation sent with GET', async () => {
    const owner = await makeAccount(app, 'pro')
    const read = await get(
      endpoint,
      { query: 'query Plan($n: Int) { viewer { plan } sites(first: $n) { totalCount } }', variables: { n: 5 }, operationName: 'Plan' },
      owner.headers,
    )
    expect(read.status).toBe(200)
    expect(read.body.data).toEqual({ viewer: { plan: 'pro' }, sites: { totalCount: 0 } })
    expect(read.headers.get('vary')).toMatch(/Authorization/)

    const write = await get(endpoint, { query: 'mutation { createSite(input: { name: "Over GET" }) { id } }' }, owner.headers)
    expect(write.status).toBe(405)
    expect(write.headers.get('allow')).toBe('POST')
    expect(write.body.errors[0].extensions.code).toBe('BAD_REQUEST')
    const sites = await post(endpoint, { query: '{ sites { totalCount } }' }, owner.headers)
    expect(sites.body.data.sites.totalCount).toBe(0)
  })

  it('offers GraphiQL outside production', async () => {
    const res = await fetch(`${origin}/v1/graphiql`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('graphiql')
    expect(res.headers.get('content-security-policy')).toContain('https://unpkg.com')
  })

  it('keeps /openapi.json the REST document it was', async () => {
    const document = (await (await fetch(`${origin}/openapi.json`)).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(document.paths).filter((path) => path.includes('graph'))).toEqual([])
  })
})

describe('GraphQL in production', () => {
  // Production refuses a throwaway embedded database; the real server stands in for both drivers here.
  it.runIf(onPostgres)('has no GraphiQL, but introspection and the schema file', async () => {
    const { app: production } = await buildTestApp({ env: { NODE_ENV: 'production', ALLOW_EMBEDDED_DATABASE: 'true' } })
    // Nothing is there: /v1 answers an unknown path as it answers any (401 without a token).
    const graphiql = await production.inject({ url: '/v1/graphiql' })
    expect([401, 404]).toContain(graphiql.statusCode)
    expect(graphiql.body).not.toContain('graphiql')
    expect((await production.inject({ url: '/v1/graphql/schema.graphql' })).body).toBe(sdl)
    const owner = await makeAccount(production, 'plus')
    const answer = await production.inject({
      method: 'POST',
      url: '/v1/graphql',
      headers: owner.headers,
      payload: { query: '{ __schema { queryType { name } } }' },
    })
    expect(answer.json()).toMatchObject({ data: { __schema: { queryType: { name: 'Query' } } } })
  })
})
