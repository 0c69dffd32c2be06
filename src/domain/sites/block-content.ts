import { Ajv } from 'ajv'
import { Type, type Static, type TSchema } from 'typebox'
import { errors, validationMessage, type ValidationIssue } from '../../errors.ts'
import { literalUnion } from '../../schemas.ts'

/**
 * The content of each block type (DESIGN.md 7 "Block content by type"). Every object refuses
 * unknown fields; links may only be web, relative, fragment, mail or phone addresses (never
 * javascript:), and images come over https or from the site itself.
 */
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength })
const Href = Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https?://|/|#|mailto:|tel:)' })
const ImageSrc = Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https://|/)' })
const strict = { additionalProperties: false } as const
export const MediaIdField = Type.String({ pattern: '^med_[A-Za-z0-9_-]{8,64}$', description: 'An image of the account’s media library' })
/**
 * An image from an address (`src`) or from the media library (`media_id`), exactly one of them;
 * without alt text a library image shows its own.
 */
const pictureFields = {
  src: Type.Optional(ImageSrc),
  media_id: Type.Optional(MediaIdField),
  alt: Type.Optional(Type.String({ maxLength: 300 })),
}
const oneSource = {
  oneOf: [
    { type: 'object', required: ['src'] },
    { type: 'object', required: ['media_id'] },
  ],
}
const Picture = Type.Object(pictureFields, { ...strict, ...oneSource })
/** The most images a gallery block holds. */
export const GALLERY_MAX = 24
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type Weekday = (typeof WEEKDAYS)[number]
const Time = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$|^24:00$', description: 'HH:MM, 24-hour' })

export const BlockContents = {
  hero: Type.Object(
    {
      heading: text(200),
      subheading: Type.Optional(text(500)),
      cta: Type.Optional(Type.Object({ label: text(80), href: Href }, strict)),
      image: Type.Optional(Picture),
    },
    strict,
  ),
  text: Type.Object({ markdown: text(20_000) }, strict),
  image: Type.Object({ ...pictureFields, caption: Type.Optional(text(500)) }, { ...strict, ...oneSource }),
  gallery: Type.Object(
    {
      heading: Type.Optional(text(200)),
      images: Type.Array(Type.Object({ ...pictureFields, caption: Type.Optional(text(500)) }, { ...strict, ...oneSource }), {
        minItems: 1,
        maxItems: GALLERY_MAX,
      }),
    },
    strict,
  ),
  features: Type.Object(
    {
      heading: Type.Optional(text(200)),
      items: Type.Array(Type.Object({ title: text(200), text: text(2000) }, strict), { minItems: 1, maxItems: 50 }),
    },
    strict,
  ),
  faq: Type.Object(
    {
      heading: Type.Optional(text(200)),
      items: Type.Array(Type.Object({ question: text(300), answer: text(5000) }, strict), { minItems: 1, maxItems: 50 }),
    },
    strict,
  ),
  cta: Type.Object({ heading: text(200), text: Type.Optional(text(1000)), label: text(80), href: Href }, strict),
  contact_form: Type.Object({ heading: Type.Optional(text(200)), submit_label: Type.Optional(text(80)) }, strict),
  testimonial: Type.Object({ quote: text(2000), author: text(200), role: Type.Optional(text(200)) }, strict),
  opening_hours: Type.Object(
    {
      heading: Type.Optional(text(200)),
      items: Type.Array(Type.Object({ day: literalUnion(WEEKDAYS), opens: Time, closes: Time }, strict), {
        minItems: 1,
        maxItems: 50,
        description: 'Opening ranges of the week; a day with several ranges (a lunch break) has several items, a day without any is closed',
      }),
      exceptions: Type.Optional(
        Type.Array(
          Type.Object(
            {
              date: Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$', description: 'YYYY-MM-DD' }),
              closed: Type.Optional(Type.Boolean()),
              opens: Type.Optional(Time),
              closes: Type.Optional(Time),
              note: Type.Optional(text(200)),
            },
            strict,
          ),
          { maxItems: 50, description: 'Dated exceptions: closed (no times) or other hours that day' },
        ),
      ),
    },
    strict,
  ),
  menu: Type.Object(
    {
      heading: Type.Optional(text(200)),
      currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, EUR unless given' })),
      items: Type.Array(
        Type.Object(
          {
            section: Type.Optional(text(200)),
            name: text(200),
            description: Type.Optional(text(1000)),
            price: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000, description: 'In the currency, such as 3.5' })),
          },
          strict,
        ),
        {
          minItems: 1,
          maxItems: 200,
          description: 'The items in order; consecutive items with the same section are shown under that section’s title',
        },
      ),
    },
    strict,
  ),
  contact_details: Type.Object(
    {
      heading: Type.Optional(text(200)),
      address: Type.Optional(
        Type.Object(
          { street: text(200), postal_code: Type.Optional(text(20)), locality: text(100), country: Type.Optional(text(100)) },
          strict,
        ),
      ),
      phone: Type.Optional(Type.String({ minLength: 3, maxLength: 40, pattern: '^\\+?[0-9][0-9 ()./-]*[0-9]$' })),
      email: Type.Optional(Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' })),
    },
    strict,
  ),
} as const satisfies Record<string, TSchema>

export type BlockType = keyof typeof BlockContents
export const BLOCK_TYPES = Object.keys(BlockContents) as BlockType[]
export type BlockContent<T extends BlockType = BlockType> = Static<(typeof BlockContents)[T]>

/** A block as a discriminated union on `type`: each type with its own content. */
export type TypedBlock = { [T in BlockType]: { type: T; content: BlockContent<T> } }[BlockType]

export function isBlockType(value: unknown): value is BlockType {
  return typeof value === 'string' && Object.hasOwn(BlockContents, value)
}

const ajv = new Ajv({ allErrors: false, strict: false })
const validators = Object.fromEntries(BLOCK_TYPES.map((type) => [type, ajv.compile(BlockContents[type])])) as Record<
  BlockType,
  ReturnType<Ajv['compile']>
>

/** Whether content is valid for a block of this type (no error made: for trying several types). */
export function contentFits(type: BlockType, content: unknown): boolean {
  return validators[type](content) === true
}

/** The media library items a block's content shows (an image, a hero's picture, a gallery's images). */
export function blockMediaIds(block: TypedBlock): string[] {
  switch (block.type) {
    case 'hero':
      return block.content.image?.media_id ? [block.content.image.media_id] : []
    case 'image':
      return block.content.media_id ? [block.content.media_id] : []
    case 'gallery':
      return block.content.images.flatMap((i) => (i.media_id ? [i.media_id] : []))
    default:
      return []
  }
}

/** Checks content against its type's schema; a mismatch is 400 invalid_block_content naming the field. */
export function checkBlockContent(type: BlockType, content: unknown): TypedBlock {
  const validate = validators[type]
  if (validate(content)) return { type, content } as TypedBlock
  const issues = (validate.errors ?? []).map((e) => ({ ...e, instancePath: `/content${e.instancePath}` })) as ValidationIssue[]
  throw new errors.invalidBlockContent(`${validationMessage(issues).message} for a block of type ${type}`)
}
