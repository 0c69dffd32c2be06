import { Type } from 'typebox'

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
