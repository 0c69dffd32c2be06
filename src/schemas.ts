import { Type, type TLiteral, type TUnion } from 'typebox'

/** RFC 9457 problem details, the error body outside /api/agent and /oauth. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    code: Type.String(),
  },
  { additionalProperties: false },
)

/** A union of string literals from a constant list, so the list is written once (anyOf of const). */
export function literalUnion<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as never
}
