import { Type, type TSchema } from 'typebox'
import { BLOCK_TYPES, BlockContents } from '../../domain/sites/block-content.ts'
import { literalUnion } from '../../schemas.ts'
import { Position } from '../../domain/sites/content-inputs.ts'
import { DateTime, LeadStatus, Locale, nullable, SiteId } from '../../domain/sites/views.ts'

// The resources' own shapes are shared with the MCP tools (src/domain/sites/views.ts).
export {
  Assistant,
  Block,
  BlockId,
  Build,
  BuildId,
  Domain,
  DomainId,
  Lead,
  LeadId,
  LeadStatus,
  Locale,
  Page,
  PageId,
  Site,
  SiteId,
} from '../../domain/sites/views.ts'

/** The TypeBox schemas of the site-content resources of /v1 (DESIGN.md 7 "Fields"). */

const strict = { additionalProperties: false } as const

export const SessionId = Type.String({ pattern: '^ag_[A-Za-z0-9_-]+$', minLength: 4, maxLength: 200, description: 'ag_…' })

// Sites and pages: the bodies the dashboard's forms are checked against too (src/domain/sites/content-inputs.ts).
export { NewPage, NewSite, PagePatch, SitePatch } from '../../domain/sites/content-inputs.ts'

// Blocks: the bodies GraphQL's block inputs are checked against too (src/domain/sites/content-inputs.ts).

export { BlockPatch, BlockType, NewBlock } from '../../domain/sites/content-inputs.ts'

/** One shape per block type, `type` naming it and `content` typed by it. */
const typedBlocks = (title: (type: string) => string) =>
  BLOCK_TYPES.map((type) =>
    Type.Object(
      { type: Type.Literal(type), content: BlockContents[type], position: Type.Optional(Position) },
      { ...strict, title: title(type) },
    ),
  )

/**
 * The block bodies as the OpenAPI document shows them: content typed by the block's type (the
 * discriminated union of DESIGN.md 7). The validator checks the outer shape only and the route
 * the content, so a mismatch is one code, 400 invalid_block_content, naming the field.
 */
const newBlockName = (type: string) => `New${type.replace(/(^|_)(\w)/g, (_match, _sep, letter: string) => letter.toUpperCase())}Block`
export const NewBlockSchemas = Object.fromEntries(
  typedBlocks((type) => `new ${type} block`).map((schema, i) => [newBlockName(BLOCK_TYPES[i]!), schema]),
)
const newBlockRef = (type: string) => `#/components/schemas/${newBlockName(type)}`
export const NewBlockDocumented = {
  oneOf: BLOCK_TYPES.map((type) => ({ $ref: newBlockRef(type) })),
  discriminator: { propertyName: 'type', mapping: Object.fromEntries(BLOCK_TYPES.map((type) => [type, newBlockRef(type)])) },
  description: 'A block of one type with its content; position defaults to the end',
}
const anyContent = Type.Union(
  BLOCK_TYPES.map((type) => BlockContents[type]),
  { description: 'New content of the block’s current type' },
)
export const BlockPatchDocumented = Type.Union(
  [
    ...typedBlocks((type) => `change to a ${type} block`),
    Type.Object({ content: anyContent, position: Type.Optional(Position) }, { ...strict, title: 'change the content' }),
    Type.Object({ position: Position }, { ...strict, title: 'move the block' }),
  ],
  { description: 'A new type needs new content of that type; position moves the block' },
)

// Domains

export { NewDomain } from '../../domain/sites/content-inputs.ts'

// Builds

export { Rollback } from '../../domain/sites/content-inputs.ts'

// Leads

export const LeadPatch = Type.Object({ status: LeadStatus }, { ...strict, description: 'What changes of a lead: its status' })

// Conversations

const ConversationFields = {
  session_id: SessionId,
  site_id: SiteId,
  locale: Locale,
  handoff: Type.Object({ state: literalUnion(['none', 'requested', 'active', 'resolved'] as const), since: nullable(DateTime) }, strict),
  created_at: DateTime,
  last_active_at: DateTime,
}
export const Conversation = Type.Object(ConversationFields, { ...strict, description: 'A conversation with the sales assistant' })
export const ConversationWithMessages = Type.Object(
  {
    ...ConversationFields,
    messages: Type.Array(
      Type.Object({ role: literalUnion(['visitor', 'assistant', 'operator'] as const), text: Type.String(), at: DateTime }, strict),
      { description: 'The last 200 messages, oldest first' },
    ),
  },
  { ...strict, description: 'A conversation with its transcript' },
)
export const OperatorMessage = Type.Object({ text: Type.String({ minLength: 1, maxLength: 2000 }) }, strict)

/** Params of one id named `name`. */
export const params = <K extends string, T extends TSchema>(name: K, schema: T) =>
  Type.Object({ [name]: schema } as { [P in K]: T }, strict)
