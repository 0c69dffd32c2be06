import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth'
import type { FastifyRequest } from 'fastify'
import {
  getNamedType,
  isCompositeType,
  isListType,
  getNullableType,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql/index.js'
import { getComplexity, type ComplexityEstimatorArgs } from 'graphql-query-complexity'
import { badInput, GraphqlRefusal } from './errors.ts'
import { MAX_FIRST } from './paging.ts'

/**
 * What one operation may ask for (DESIGN.md 13), decided before anything runs: at most 10 levels
 * deep (GraphQL Armor's max-depth rule; fragments add no level, introspection is not counted) and a cost of at most 1000
 * (graphql-query-complexity with the estimator below). Every answer carries
 * `extensions.cost {requested, limit}`.
 */

export const MAX_DEPTH = 10
export const MAX_COST = 1000

export interface Cost {
  requested: number
  limit: number
}

/** The size a list without `first` is priced at (the default page of its kind). */
const DEFAULT_FIRST: Record<string, number> = { builds: 10 }

/**
 * An object costs 1 and a leaf nothing; a connection or list costs 1 plus `first` times what is
 * selected of each item. A connection's edges, nodes and pageInfo are its own parts: an item's
 * cost is counted once per `first` whether it is asked through `edges { node }` or `nodes`.
 */
function estimate({ type, field, args, childComplexity }: ComplexityEstimatorArgs): number {
  const returned = getNullableType(field.type)
  const named = getNamedType(field.type)
  if (!isCompositeType(named)) return 0
  const parentName = type.name
  // Introspection reads the schema, not the data: free, like the schema file.
  if (field.name.startsWith('__') || parentName.startsWith('__')) return 0
  if (parentName.endsWith('Connection') || parentName.endsWith('Edge')) {
    // edges, nodes, node: their items were multiplied by the connection already.
    return field.name === 'edges' ? childComplexity : field.name === 'pageInfo' ? 0 : 1 + childComplexity
  }
  const first = typeof args['first'] === 'number' ? args['first'] : (DEFAULT_FIRST[field.name] ?? 20)
  if (named.name.endsWith('Connection')) return 1 + Math.min(Math.max(first, 0), MAX_FIRST * 10) * childComplexity
  if (isListType(returned)) return 1 + Math.min(Math.max(first, 0), MAX_FIRST * 10) * childComplexity
  return 1 + childComplexity
}

const depthChecked = new WeakMap<DocumentNode, GraphQLError | null>()

function depthError(schema: GraphQLSchema, document: DocumentNode): GraphQLError | null {
  let known = depthChecked.get(document)
  if (known === undefined) {
    known =
      validate(schema, document, [
        maxDepthRule({
          n: MAX_DEPTH,
          flattenFragments: true,
          propagateOnRejection: false,
          onReject: [(context, error) => context?.reportError(error)],
        }),
      ])[0] ?? null
    depthChecked.set(document, known)
  }
  return known
}

/** Refuses an operation nested too deeply (subscriptions, whose variables the hooks do not see, are checked for depth only). */
export function checkDepth(schema: GraphQLSchema, document: DocumentNode): void {
  if (depthError(schema, document))
    throw new GraphqlRefusal(`The operation is nested deeper than ${MAX_DEPTH} levels`, {
      code: 'QUERY_TOO_COMPLEX',
      depth: { limit: MAX_DEPTH },
    })
}

/** Costs of a document by its operation and variables (documents are reused by mercurius's cache). */
const costs = new WeakMap<DocumentNode, Map<string, number>>()
const COSTS_PER_DOCUMENT = 32

function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): number {
  const key = `${operationName ?? ''}\n${variables === undefined ? '' : JSON.stringify(variables)}`
  let known = costs.get(document)
  const cached = known?.get(key)
  if (cached !== undefined) return cached
  const cost = getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    ...(operationName ? { operationName } : {}),
    estimators: [estimate],
  })
  if (!known) costs.set(document, (known = new Map()))
  if (known.size >= COSTS_PER_DOCUMENT) known.clear()
  known.set(key, cost)
  return cost
}

const requestCosts = new WeakMap<object, Cost>()

/** The cost the request was priced at (0 when it never got that far). */
export function costOfRequest(request: FastifyRequest | undefined): Cost {
  return (request && requestCosts.get(request)) ?? { requested: 0, limit: MAX_COST }
}

/**
 * Prices an operation and refuses it (QUERY_TOO_COMPLEX with the cost, and the depth when that is
 * what is over) before it runs. `request` keeps the price for the answer's extensions.
 */
export function checkLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
  request?: FastifyRequest,
): Cost {
  let requested: number
  try {
    requested = costOf(schema, document, variables, operationName)
  } catch (error) {
    // A document too large to price (graphql-query-complexity's node limit) is too complex; other
    // refusals are about the variables, which mercurius has not checked yet on a query's first compilation.
    if (!/node/i.test((error as Error).message)) throw badInput(String((error as Error).message))
    requested = Number.MAX_SAFE_INTEGER
  }
  const cost = { requested, limit: MAX_COST }
  if (request) requestCosts.set(request, cost)
  const tooDeep = depthError(schema, document)
  if (tooDeep)
    throw new GraphqlRefusal(`The operation is nested deeper than ${MAX_DEPTH} levels`, {
      code: 'QUERY_TOO_COMPLEX',
      cost,
      depth: { limit: MAX_DEPTH },
    })
  if (requested > MAX_COST) {
    throw new GraphqlRefusal(
      `The operation costs ${requested}, above the limit of ${MAX_COST}; ask for fewer items (first) or fewer nested lists`,
      { code: 'QUERY_TOO_COMPLEX', cost },
    )
  }
  return cost
}
