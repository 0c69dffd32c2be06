import { readFileSync } from 'node:fs'
import { buildSchema, getNamedType, isInputObjectType, type GraphQLInputObjectType } from 'graphql/index.js'
import { describe, expect, it } from 'vitest'

// graphql-jit compiles the parsing of a query's variables; an input type that reaches itself
// again (a menu item whose children are menu items) made that compilation loop until the process
// ran out of memory. Nested inputs are written out to the depth they allow instead.
const schema = buildSchema(readFileSync(new URL('../../src/graphql/schema.graphql', import.meta.url), 'utf8'))

/** The input types reachable from `type` through its fields, `type` itself included if it comes back. */
function reachable(type: GraphQLInputObjectType, seen = new Set<string>()): Set<string> {
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type)
    if (!isInputObjectType(named) || seen.has(named.name)) continue
    seen.add(named.name)
    reachable(named, seen)
  }
  return seen
}

describe('the GraphQL schema’s input types', () => {
  it('never lead back to themselves', () => {
    const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType)
    expect(inputs.length).toBeGreaterThan(20)
    expect(inputs.filter((type) => reachable(type).has(type.name)).map((type) => type.name)).toEqual([])
  })
})
