import { Kind, type ValueNode } from 'graphql/index.js'
import { badInput } from './errors.ts'

/** `JSON`: any JSON value, as a variable or written in the query (a block's content, an event's data). */
function literal(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value)
    case Kind.NULL:
      return null
    case Kind.LIST:
      return node.values.map((value) => literal(value, variables))
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literal(field.value, variables)]))
    case Kind.VARIABLE:
      return variables?.[node.name.value]
    default:
      throw badInput('A JSON value is expected here')
  }
}

export const JSONScalar = {
  serialize: (value: unknown) => value,
  parseValue: (value: unknown) => value,
  parseLiteral: literal,
}

/** `DateTime`: ISO 8601 with a time zone, e.g. 2026-11-25T10:00:00Z; answered in UTC as REST does. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i

function parseDateTime(value: unknown): Date {
  const date = typeof value === 'string' && DATE_TIME.test(value) ? new Date(value) : undefined
  if (!date || Number.isNaN(date.getTime()))
    throw new TypeError('A DateTime is an ISO 8601 date and time with its offset, e.g. 2026-11-25T10:00:00Z')
  return date
}

export const DateTimeScalar = {
  serialize: (value: unknown) => (value instanceof Date ? value.toISOString() : value),
  parseValue: parseDateTime,
  parseLiteral: (node: ValueNode) => parseDateTime(node.kind === Kind.STRING ? node.value : undefined),
}
