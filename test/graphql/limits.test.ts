import { buildSchema, getIntrospectionQuery, parse } from 'graphql/index.js'
import { describe, expect, it } from 'vitest'
import { checkLimits } from '../../src/graphql/limits.ts'
import { listeningApp, makeAccount, post } from './helpers.ts'

const { app, endpoint } = await listeningApp()
const modern = { accept: 'application/graphql-response+json' }

describe('GraphQL limits: depth and cost priced before anything runs', () => {
  it('prices every answer: an object 1, a connection first times its items', async () => {
    const owner = await makeAccount(app, 'pro')
    const cases: Array<[string, number]> = [
      ['{ viewer { id } }', 1],
      ['{ sites(first: 50) { totalCount } }', 1],
      ['{ sites(first: 50) { nodes { id name } } }', 51],
      ['{ sites(first: 50) { edges { cursor node { id } } pageInfo { hasNextPage } } }', 51],
      [
        '{ sites(first: 10) { nodes { pages(first: 10) { nodes { blocks(first: 5) { nodes { id } } } } } } }',
        1 + 10 * (1 + 1 + 10 * (1 + 1 + 5)),
      ],
    ]
    for (const [query, cost] of cases) {
      const answer = await post(endpoint, { query }, owner.headers)
      expect(answer.body.errors).toBeUndefined()
      expect(answer.body.extensions).toEqual({ cost: { requested: cost, limit: 1000 } })
    }
  })

  it('refuses an operation above 1000 with QUERY_TOO_COMPLEX and its cost, running nothing of it', async () => {
    const owner = await makeAccount(app, 'pro')
    const query =
      'mutation { createSite(input: { name: "Never" }) { id pages(first: 100) { nodes { blocks(first: 100) { nodes { id } } } } } }'
    const refused = await post(endpoint, { query }, { ...owner.headers, ...modern })
    expect(refused.status).toBe(400)
    const cost = { requested: 1 + 1 + 100 * (1 + 1 + 100), limit: 1000 }
    expect(refused.body).toEqual({
      errors: [{ message: expect.stringContaining('above the limit of 1000'), extensions: { code: 'QUERY_TOO_COMPLEX', cost } }],
      extensions: { cost },
    })
    expect(await app.db.selectFrom('sites').select('id').where('account_id', '=', owner.accountId).execute()).toEqual([])

    // Variables count too: the same document is cheap or not by what `first` is given.
    const byVariable = 'query S($n: Int) { sites(first: $n) { nodes { pages(first: $n) { nodes { id } } } } }'
    expect((await post(endpoint, { query: byVariable, variables: { n: 5 } }, owner.headers)).body.extensions.cost.requested).toBe(
      1 + 5 * (1 + 1 + 5),
    )
    const expensive = await post(endpoint, { query: byVariable, variables: { n: 40 } }, owner.headers)
    expect(expensive.body.errors[0].extensions).toEqual({
      code: 'QUERY_TOO_COMPLEX',
      cost: { requested: 1 + 40 * (1 + 1 + 40), limit: 1000 },
    })
  })

  it('takes the deepest reads the schema has (10 levels), fragments adding no level', async () => {
    const owner = await makeAccount(app, 'pro')
    const ten =
      '{ sites(first: 1) { edges { node { pages(first: 1) { edges { node { blocks(first: 1) { edges { node { id } } } } } } } } } }'
    expect((await post(endpoint, { query: ten }, owner.headers)).body.errors).toBeUndefined()
    const fragments = `
      query Deep { sites(first: 1) { ...S } }
      fragment S on SiteConnection { edges { node { pages(first: 1) { ...P } } } }
      fragment P on PageConnection { edges { node { blocks(first: 1) { ...B } } } }
      fragment B on BlockConnection { edges { node { ... on Block { id } } } }`
    expect((await post(endpoint, { query: fragments }, owner.headers)).body.errors).toBeUndefined()
  })

  it('refuses an operation nested deeper than 10 levels with QUERY_TOO_COMPLEX, introspection aside', () => {
    // The service's own schema is 10 levels at its deepest; a recursive one shows the rule at work.
    const schema = buildSchema('type Query { node: Node } type Node { id: ID child: Node }')
    const nested = (levels: number): string => (levels === 1 ? 'id' : `child { ${nested(levels - 1)} }`)
    expect(checkLimits(schema, parse(`{ node { ${nested(9)} } }`), {}, undefined)).toEqual({ requested: 9, limit: 1000 })
    expect(() => checkLimits(schema, parse(`{ node { ${nested(10)} } }`), {}, undefined)).toThrow(
      expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', cost: { requested: 10, limit: 1000 }, depth: { limit: 10 } } }),
    )
    expect(() => checkLimits(schema, parse(getIntrospectionQuery()), {}, undefined)).not.toThrow()
  })
})
