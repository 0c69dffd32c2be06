import fastJsonStringify, { type Options } from 'fast-json-stringify'

type Schema = Record<string, unknown>

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)

/** `{ type: 'null' }` and nothing else (a description aside). */
function isNull(schema: unknown): boolean {
  return isSchema(schema) && schema['type'] === 'null' && Object.keys(schema).every((key) => key === 'type' || key === 'description')
}

/** One option of a single named type with no choice of its own inside (no anyOf, oneOf, allOf, $ref, if). */
function isPlainTyped(schema: unknown): schema is Schema & { type: string } {
  return (
    isSchema(schema) &&
    typeof schema['type'] === 'string' &&
    schema['type'] !== 'null' &&
    !['anyOf', 'oneOf', 'allOf', '$ref', 'if', 'not'].some((key) => key in schema)
  )
}

/** Keywords whose value is data, never a schema. */
const VALUES = new Set(['enum', 'const', 'examples', 'default'])
/** Keywords whose value maps names to schemas. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/**
 * A copy of a response schema in which every nullable value, TypeBox's `anyOf: [T, { type: 'null' }]`,
 * is written as T with `type: [T's type, 'null']`. Every other keyword and choice is kept as it is.
 */
export function nullableAsTypeList(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsTypeList)
  if (!isSchema(schema)) return schema
  const copy: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (VALUES.has(key)) copy[key] = value
    // Under these the keys are names (a property may well be called `default` or `enum`), each naming a schema.
    else if (NAMED_SCHEMAS.has(key) && isSchema(value))
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, named]) => [name, nullableAsTypeList(named)]))
    else copy[key] = nullableAsTypeList(value)
  }
  const options = copy['anyOf']
  if (!Array.isArray(options) || options.length !== 2) return copy
  const nullAt = options.findIndex(isNull)
  const typed = options[1 - nullAt]
  if (nullAt < 0 || !isPlainTyped(typed)) return copy
  const { anyOf: _anyOf, ...siblings } = copy
  return { ...siblings, ...typed, type: [typed.type, 'null'] }
}

/**
 * Serialisers by their schema, shared schemas and options, for the whole process: every app a
 * process builds compiles the same response schemas, about 170 ms of a 1.2 s start. Keyed by
 * JSON, which is all a serialiser depends on: routes make their schemas anew each time.
 */
const serializers = new Map<string, (data: unknown) => string>()

/**
 * Fastify's response serialisers (fast-json-stringify, with the external schemas and options
 * Fastify hands over) made from `nullableAsTypeList` of each response schema. fast-json-stringify
 * writes an anyOf by running an Ajv validator of each option against the value, and writes a type
 * list with a typeof test: on a 50-site list that was a validator run for every nullable field of
 * every site, a fifth of the list's memory allocation. The bytes are the same. The routes' own
 * schemas, which the OpenAPI document is made from, are not changed.
 */
export function buildSerializer(externalSchemas: unknown, serializerOptions: Options | undefined) {
  const external = (externalSchemas ?? {}) as Record<string, unknown>
  return ({ schema }: { schema?: unknown }) => {
    // As Fastify's own compiler does: a response schema that is itself one of the shared schemas is not passed twice.
    const id = isSchema(schema) ? schema['$id'] : undefined
    const shared =
      typeof id === 'string' && id in external ? Object.fromEntries(Object.entries(external).filter(([key]) => key !== id)) : external
    const key = JSON.stringify([schema, shared, serializerOptions ?? null])
    let serialize = serializers.get(key)
    if (!serialize)
      serializers.set(
        key,
        (serialize = fastJsonStringify(nullableAsTypeList(schema) as Parameters<typeof fastJsonStringify>[0], {
          ...serializerOptions,
          schema: shared as Options['schema'],
        })),
      )
    return serialize
  }
}
