import { Type, type TSchema } from 'typebox'
import { BLOCK_TYPES, type BlockType, type TypedBlock } from '../domain/sites/block-content.ts'
import { BlockId, PageId } from '../domain/sites/views.ts'
import { literalUnion } from '../schemas.ts'

/**
 * What the tools answer beyond the shared views of src/domain/sites/views.ts: a block with content as any
 * object (an output schema must be an object, not the union /v1 describes) and the list envelope.
 */

const strict = { additionalProperties: false } as const

export const BlockSchema = Type.Object(
  {
    id: BlockId,
    page_id: PageId,
    type: Type.Unsafe<BlockType>(literalUnion(BLOCK_TYPES)),
    position: Type.Integer({ minimum: 0 }),
    content: Type.Unsafe<TypedBlock['content']>(Type.Object({}, { additionalProperties: true })),
  },
  strict,
)

/** One page of a list: the /v1 envelope. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item),
      meta: Type.Object(
        { total: Type.Integer({ minimum: 0 }), page: Type.Integer({ minimum: 1 }), per_page: Type.Integer({ minimum: 1 }) },
        strict,
      ),
    },
    strict,
  )
}
