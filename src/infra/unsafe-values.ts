import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { ajvFormats } from './ajv-formats.ts'
import { compiledOnce } from './compiled-once.ts'

/** What no input value may be, though a schema lets it pass, with the rule it is reported under. */
type Unsafe = { at: string; keyword: 'pattern' | 'maximum' }

/**
 * Where the first value sits (as a JSON pointer) that the database cannot take although the
 * schema accepted it: a string or key holding U+0000 (PostgreSQL text cannot store it) or a lone
 * surrogate (not Unicode: it would be stored as U+FFFD, and has no canonical form), or a
 * number that is not finite (`1e999` in JSON, or `?page=1e309`, which the validator's
 * coercion turns into Infinity and its range checks then skip) or a whole number beyond 2^53,
 * which no field of the service holds and which arithmetic on it (an offset) would make infinite.
 */
function unsafeAt(value: unknown, path = ''): Unsafe | undefined {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed() ? { at: path, keyword: 'pattern' } : undefined
  if (typeof value === 'number')
    return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))
      ? undefined
      : { at: path, keyword: 'maximum' }
  if (typeof value !== 'object' || value === null) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unsafeAt(value[i], `${path}/${i}`)
      if (found) return found
    }
    return undefined
  }
  for (const [key, child] of Object.entries(value)) {
    if (key.includes('\u0000') || !key.isWellFormed()) return { at: path, keyword: 'pattern' }
    const found = unsafeAt(child, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)
    if (found) return found
  }
  return undefined
}

/** A validator that also refuses, in what passed the schema, the values `unsafeAt` finds. */
function refusingUnsafe(validate: ValidateFunction, prepare: (data: unknown) => unknown = (data) => data): ValidateFunction {
  let issues: ErrorObject[] | null = null
  const check = (data: unknown) => {
    const input = prepare(data)
    if (!validate(input)) {
      issues = validate.errors ?? null
      return false
    }
    const found = unsafeAt(input)
    issues = found ? [{ keyword: found.keyword, instancePath: found.at, schemaPath: '#', params: {}, message: 'not storable' }] : null
    return issues === null
  }
  return Object.defineProperty(check, 'errors', { get: () => issues }) as unknown as ValidateFunction
}

/**
 * Compiles schemas with the service's validation rules: unknown properties are refused, not
 * silently dropped, wherever a schema says so; defaults are applied; with `coerce`, text values
 * (query, path, form fields) are converted to the types their schemas declare; and what passed
 * is refused if it holds a value `unsafeAt` finds. `prepare` turns the input into what is checked.
 * Each validator is compiled once per process (`compiledOnce`).
 */
export function checkedCompiler(coerce: boolean): (schema: object, prepare?: (data: unknown) => unknown) => ValidateFunction {
  const compile = compiledOnce(coerce ? 'checked, text coerced' : 'checked', () => {
    const ajv = new Ajv({ coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, allErrors: false })
    ajvFormats(ajv)
    return ajv
  })
  return (schema, prepare) => refusingUnsafe(compile(schema), prepare)
}
