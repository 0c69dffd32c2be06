import type { Ajv, ValidateFunction } from 'ajv'

/**
 * Compiled validators by their compiler's name and schema, for the whole process: every app a
 * process builds (instances side by side, a test worker building one per file) compiles the same
 * few hundred route schemas, about 150 ms of a 1.2 s start. Keyed by the schema's JSON, not its
 * object: routes make their schemas anew on each registration, and a schema's JSON is all a
 * validator depends on while no schema is added to the instance (so none is reached by $ref).
 * The set is bounded by the service's own schemas.
 */
const compiled = new Map<string, ValidateFunction>()

/**
 * A compiler that makes each validator once per process. `name` stands for the options of the
 * instance `makeAjv` returns: two compilers with other options need other names. The instance is
 * made when a schema is first compiled here.
 */
export function compiledOnce(name: string, makeAjv: () => Ajv): (schema: object) => ValidateFunction {
  let ajv: Ajv | undefined
  return (schema) => {
    const key = `${name}\u0000${JSON.stringify(schema)}`
    let validate = compiled.get(key)
    if (!validate) compiled.set(key, (validate = (ajv ??= makeAjv()).compile(schema)))
    return validate
  }
}
