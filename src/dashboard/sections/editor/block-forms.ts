import type { BlockContent, BlockType } from '../../../domain/sites/block-content.ts'
import { renderMarkdown } from '../../../domain/sites/markdown.ts'
import type { FastifyReply } from 'fastify'
import { html, raw, type SafeHtml } from '../../../infra/html.ts'
import { contentSecurityPolicy } from '../../../infra/security.ts'
import { textOf, type FieldSpec, type FormBody } from './form.ts'
import { GALLERY_MAX, WEEKDAYS } from '../../../domain/sites/block-content.ts'
import { addressLine, dayName, hoursInShort } from '../../../domain/sites/hours.ts'

/** A special day as typed ("2026-12-24 closed Christmas Eve", "2026-12-31 10:00-14:00 New Year"); anything else is kept as its date, which the schema refuses. */
function exceptionFrom(line: string): Record<string, unknown> {
  const match = /^(\S+)\s+(closed|geschlossen|fermé|(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2}))\s*(.*)$/i.exec(line)
  if (!match) return { date: line }
  const pad = (t: string) => t.padStart(5, '0')
  const note = match[5]?.trim()
  return { date: match[1], ...(match[3] ? { opens: pad(match[3]), closes: pad(match[4]!) } : { closed: true }), ...(note ? { note } : {}) }
}

/**
 * One form per block type (DESIGN.md 7 "Block content by type"): its fields, named by their path
 * in the content (`cta.href`, `items.2.title`), how typed values become content and back, and a
 * one-line summary for the page's list of blocks. The content is checked by the type's schema in
 * src/domain/sites/block-content.ts, as on /v1.
 */

/**
 * A page that shows a text block as it will be published (its preview, its summary) shows the
 * text's pictures, which the site loads from any https address: the dashboard's policy with
 * images from https and data: too, and nothing else loosened. Other pages keep their own images only.
 */
export function allowPreviewImages(reply: FastifyReply): void {
  contentSecurityPolicy(reply, { 'img-src': ["'self'", 'https:', 'data:'] })
}

/**
 * A field of a block form; `keepEmpty`: sent even when empty (an image's alt text may be empty, but
 * is always given); `choices`: one of these (a select); `number`: a decimal number, typed with a
 * comma or a point.
 */
export type BlockField = FieldSpec & {
  keepEmpty?: boolean
  choices?: ReadonlyArray<readonly [string, string]>
  number?: boolean
  /** In a group: left out when empty (an address's postal code), where the group's other fields are sent empty to be named. */
  omitEmpty?: boolean
  /** A photo chosen from the account's media library (its id). */
  media?: boolean
}

export interface ItemList {
  /** Where the content keeps the items, when not under `items` (a gallery's `images`). */
  key?: string
  legend: string
  /** What one item is called: "Feature 2". */
  item: string
  fields: BlockField[]
}

export interface BlockForm {
  type: BlockType
  label: string
  description: string
  fields: BlockField[]
  list?: ItemList
  summary(content: never): SafeHtml
  /** Content the fields alone do not make (the dated exceptions of opening hours, typed one per line). */
  toContent?(content: Record<string, unknown>, values: Record<string, string>): Record<string, unknown>
  fromContent?(content: Record<string, unknown>, values: Record<string, string>): Record<string, string>
}

const LINK_FORMAT = 'Start the link with https://, http://, / (a page of your site), #, mailto: or tel:.'
const IMAGE_FORMAT = 'Use a picture address that starts with https:// or / (a file on your site).'
const heading = (label = 'Heading'): BlockField => ({ name: 'heading', label, maxLength: 200 })
const optionalHeading: BlockField = { name: 'heading', label: 'Heading', optional: true, maxLength: 200 }

function define<T extends BlockType>(
  form: Omit<BlockForm, 'summary'> & { type: T; summary(content: BlockContent<T>): SafeHtml },
): BlockForm {
  return form as BlockForm
}

export const BLOCK_FORMS: Record<BlockType, BlockForm> = {
  hero: define({
    type: 'hero',
    label: 'Big heading',
    description: 'The top of a page: a large heading, a line below it, and an optional button and picture.',
    fields: [
      heading(),
      { name: 'subheading', label: 'Line below the heading', optional: true, kind: 'textarea', rows: 2, maxLength: 500 },
      { name: 'cta.label', label: 'Button text', optional: true, maxLength: 80, hint: 'Leave both button fields empty for no button.' },
      { name: 'cta.href', label: 'Button link', optional: true, kind: 'link', maxLength: 2000, format: LINK_FORMAT },
      {
        name: 'image.media_id',
        label: 'Photo from your library',
        optional: true,
        omitEmpty: true,
        media: true,
        hint: 'Leave “No photo” and the address empty for no picture.',
      },
      {
        name: 'image.src',
        label: 'Or a picture address',
        optional: true,
        omitEmpty: true,
        kind: 'link',
        maxLength: 2000,
        format: IMAGE_FORMAT,
      },
      {
        name: 'image.alt',
        label: 'What the picture shows',
        optional: true,
        omitEmpty: true,
        maxLength: 300,
        hint: 'For people who cannot see it. Empty: the photo’s own description from your library.',
      },
    ],
    summary: (c) =>
      html`<strong>${c.heading}</strong>${c.subheading ? html`<br>${c.subheading}` : ''}${c.cta ? html`<br>Button: ${c.cta.label}` : ''}`,
  }),
  text: define({
    type: 'text',
    label: 'Text',
    description: 'Paragraphs, lists and links, written in Markdown.',
    fields: [
      {
        name: 'markdown',
        label: 'Text',
        kind: 'textarea',
        rows: 12,
        maxLength: 20_000,
        hint: 'Markdown: an empty line starts a new paragraph; ## starts a heading; - starts a list item; **bold**, *italic*, [link text](https://example.com).',
      },
    ],
    summary: (c) => html`<div class="rendered">${raw(renderMarkdown(c.markdown))}</div>`,
  }),
  image: define({
    type: 'image',
    label: 'Picture',
    description: 'One picture with an optional caption.',
    fields: [
      { name: 'media_id', label: 'Photo from your library', optional: true, media: true },
      {
        name: 'src',
        label: 'Or a picture address',
        optional: true,
        kind: 'link',
        maxLength: 2000,
        format: IMAGE_FORMAT,
        hint: 'Only without a photo from your library: a web address starting with https://, or a path on your site.',
      },
      {
        name: 'alt',
        label: 'What the picture shows',
        optional: true,
        maxLength: 300,
        hint: 'For people who cannot see it. Empty: the photo’s own description from your library.',
      },
      { name: 'caption', label: 'Caption', optional: true, maxLength: 500 },
    ],
    summary: (c) => html`Picture: ${c.caption ?? (c.alt || c.src || 'a photo from your library')}`,
  }),
  gallery: define({
    type: 'gallery',
    label: 'Photo gallery',
    description: `Up to ${GALLERY_MAX} photos from your library side by side, each with an optional caption.`,
    fields: [optionalHeading],
    list: {
      key: 'images',
      legend: 'Photos',
      item: 'Photo',
      fields: [
        { name: 'media_id', label: 'Photo', media: true, format: 'Choose a photo from your library.' },
        {
          name: 'alt',
          label: 'What the photo shows',
          optional: true,
          maxLength: 300,
          hint: 'Empty: the photo’s own description from your library.',
        },
        { name: 'caption', label: 'Caption', optional: true, maxLength: 500 },
      ],
    },
    // The form's rows are the gallery's images.
    toContent: (content) => {
      const { items, ...rest } = content
      return { ...rest, images: items }
    },
    fromContent: (content, values) => {
      const images = Array.isArray(content['images']) ? (content['images'] as Array<Record<string, unknown>>) : []
      const rows: Record<string, string> = {}
      images.forEach((image, i) => {
        for (const name of ['media_id', 'alt', 'caption'])
          rows[`items.${i}.${name}`] = typeof image[name] === 'string' ? (image[name] as string) : ''
      })
      return { ...values, ...rows }
    },
    summary: (c) =>
      html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${c.images.length} ${c.images.length === 1 ? 'photo' : 'photos'}${c.images.some((i) => i.caption) ? html`: ${c.images.flatMap((i) => (i.caption ? [i.caption] : [])).join(', ')}` : ''}`,
  }),
  features: define({
    type: 'features',
    label: 'Features',
    description: 'A list of what you offer, each with a title and a short text.',
    fields: [optionalHeading],
    list: {
      legend: 'Features',
      item: 'Feature',
      fields: [
        { name: 'title', label: 'Title', maxLength: 200 },
        { name: 'text', label: 'Text', kind: 'textarea', rows: 3, maxLength: 2000 },
      ],
    },
    summary: (c) =>
      html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${c.items.length} ${c.items.length === 1 ? 'feature' : 'features'}: ${c.items.map((i) => i.title).join(', ')}`,
  }),
  faq: define({
    type: 'faq',
    label: 'Questions and answers',
    description: 'Frequent questions with their answers; search engines can show them directly.',
    fields: [optionalHeading],
    list: {
      legend: 'Questions',
      item: 'Question',
      fields: [
        { name: 'question', label: 'Question', maxLength: 300 },
        { name: 'answer', label: 'Answer', kind: 'textarea', rows: 3, maxLength: 5000 },
      ],
    },
    summary: (c) =>
      html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${c.items.length} ${c.items.length === 1 ? 'question' : 'questions'}: ${c.items.map((i) => i.question).join(' · ')}`,
  }),
  cta: define({
    type: 'cta',
    label: 'Call to action',
    description: 'A short invitation with one button, such as “Book a table”.',
    fields: [
      heading(),
      { name: 'text', label: 'Text', optional: true, kind: 'textarea', rows: 3, maxLength: 1000 },
      { name: 'label', label: 'Button text', maxLength: 80 },
      { name: 'href', label: 'Button link', kind: 'link', maxLength: 2000, format: LINK_FORMAT },
    ],
    summary: (c) => html`<strong>${c.heading}</strong><br>Button: ${c.label}`,
  }),
  contact_form: define({
    type: 'contact_form',
    label: 'Contact form',
    description: 'A form visitors use to write to you; their messages arrive under Leads.',
    fields: [optionalHeading, { name: 'submit_label', label: 'Button text', optional: true, maxLength: 80, hint: 'Such as “Send”.' }],
    summary: (c) => html`${c.heading ?? 'Contact form'}${c.submit_label ? html` (button: ${c.submit_label})` : ''}`,
  }),
  opening_hours: define({
    type: 'opening_hours',
    label: 'Opening hours',
    description: 'Your week’s opening hours as a table; search engines and maps read them too.',
    fields: [
      { ...optionalHeading, hint: 'Such as “Opening hours”.' },
      {
        name: 'exceptions',
        label: 'Special days',
        optional: true,
        kind: 'textarea',
        rows: 3,
        maxLength: 5000,
        hint: 'One a line: the date, then “closed” or the hours, then a note if you like. Such as “2026-12-24 closed Christmas Eve” or “2026-12-31 10:00-14:00”.',
        format: 'Write each special day as 2026-12-24 closed, or 2026-12-31 10:00-14:00.',
      },
    ],
    list: {
      legend: 'Opening times',
      item: 'Opening time',
      fields: [
        { name: 'day', label: 'Day', choices: WEEKDAYS.map((d) => [d, dayName(d, 'en')] as const) },
        { name: 'opens', label: 'Opens at', maxLength: 5, hint: 'Such as 07:30.', format: 'Write the time as 07:30 (hours and minutes).' },
        {
          name: 'closes',
          label: 'Closes at',
          maxLength: 5,
          hint: 'Such as 18:00.',
          format: 'Write the time as 18:00 (hours and minutes).',
        },
      ],
    },
    toContent: (content, values) => {
      const lines = (values['exceptions'] ?? '')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
      const { exceptions: _typed, ...rest } = content
      return lines.length ? { ...rest, exceptions: lines.map(exceptionFrom) } : rest
    },
    fromContent: (content, values) => ({
      ...values,
      exceptions: ((content['exceptions'] as Array<Record<string, string | boolean>> | undefined) ?? [])
        .map((e) =>
          [e['date'], e['closed'] || !e['opens'] ? 'closed' : `${e['opens']}-${e['closes']}`, e['note']].filter(Boolean).join(' '),
        )
        .join('\n'),
    }),
    summary: (c) => html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${hoursInShort(c, 'en') || 'Closed all week'}`,
  }),
  menu: define({
    type: 'menu',
    label: 'Menu or price list',
    description: 'What you sell or offer, with prices: a bakery’s goods, a restaurant’s dishes, a salon’s services.',
    fields: [
      optionalHeading,
      {
        name: 'currency',
        label: 'Currency',
        optional: true,
        maxLength: 3,
        hint: 'Three capital letters, such as EUR or CHF. EUR when empty.',
        format: 'Write the currency as three capital letters, such as EUR.',
      },
    ],
    list: {
      legend: 'Items',
      item: 'Item',
      fields: [
        {
          name: 'section',
          label: 'Section',
          optional: true,
          maxLength: 200,
          hint: 'Such as “Bread” or “Cakes”. Items one after another with the same section are shown together.',
        },
        { name: 'name', label: 'Name', maxLength: 200 },
        { name: 'description', label: 'Description', optional: true, kind: 'textarea', rows: 2, maxLength: 1000 },
        {
          name: 'price',
          label: 'Price',
          optional: true,
          number: true,
          maxLength: 12,
          hint: 'Such as 3.50.',
          format: 'Write the price as a number, such as 3.50.',
        },
      ],
    },
    summary: (c) =>
      html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${c.items.length} ${c.items.length === 1 ? 'item' : 'items'}: ${c.items.map((i) => i.name).join(', ')}`,
  }),
  contact_details: define({
    type: 'contact_details',
    label: 'Contact details',
    description: 'Your address with a link to the map, your phone number and email address.',
    fields: [
      optionalHeading,
      { name: 'address.street', label: 'Street and number', maxLength: 200, autocomplete: 'address-line1' },
      { name: 'address.postal_code', label: 'Postal code', optional: true, omitEmpty: true, maxLength: 20, autocomplete: 'postal-code' },
      { name: 'address.locality', label: 'Town or city', maxLength: 100, autocomplete: 'address-level2' },
      { name: 'address.country', label: 'Country', optional: true, omitEmpty: true, maxLength: 100, autocomplete: 'country-name' },
      {
        name: 'phone',
        label: 'Phone',
        kind: 'tel',
        optional: true,
        maxLength: 40,
        format: 'Write the number with digits, spaces and an optional + in front, such as +49 30 1234567.',
      },
      {
        name: 'email',
        label: 'Email',
        kind: 'email',
        optional: true,
        maxLength: 254,
        format: 'Write an email address such as hello@your-business.com.',
      },
    ],
    summary: (c) =>
      html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${[c.address ? addressLine(c.address) : '', c.phone ?? '', c.email ?? ''].filter(Boolean).join(' · ')}`,
  }),
  testimonial: define({
    type: 'testimonial',
    label: 'Customer quote',
    description: 'What a customer said about you, with their name.',
    fields: [
      { name: 'quote', label: 'Quote', kind: 'textarea', rows: 3, maxLength: 2000 },
      { name: 'author', label: 'Who said it', maxLength: 200 },
      { name: 'role', label: 'Who they are', optional: true, maxLength: 200, hint: 'Such as “Regular customer”.' },
    ],
    summary: (c) => html`“${c.quote}” — ${c.author}`,
  }),
}

const ITEM_NAME = /^items\.(\d{1,3})\.([a-z_]+)$/

/** The typed values of a block form; items renumbered 0, 1, 2, … in the order they came. */
export function valuesFromBody(form: BlockForm, body: FormBody): Record<string, string> {
  const values: Record<string, string> = {}
  for (const f of form.fields) values[f.name] = textOf(body, f.name)
  if (!form.list) return values
  const known = new Set(form.list.fields.map((f) => f.name))
  const rows = new Map<number, Record<string, string>>()
  for (const name of Object.keys(body)) {
    const match = ITEM_NAME.exec(name)
    if (!match || !known.has(match[2]!)) continue
    const index = Number(match[1])
    rows.set(index, { ...rows.get(index), [match[2]!]: textOf(body, name) })
  }
  ;[...rows.keys()]
    .sort((a, b) => a - b)
    .forEach((index, i) => {
      for (const f of form.list!.fields) values[`items.${i}.${f.name}`] = rows.get(index)![f.name] ?? ''
    })
  return values
}

/** The values a form shows for saved content. */
export function valuesFromContent(form: BlockForm, content: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {}
  for (const f of form.fields) {
    const [head, tail] = f.name.split('.') as [string, string | undefined]
    const value = tail === undefined ? content[head] : (content[head] as Record<string, unknown> | undefined)?.[tail]
    values[f.name] = typeof value === 'string' ? value : ''
  }
  const items = Array.isArray(content['items']) ? (content['items'] as Array<Record<string, unknown>>) : []
  items.forEach((item, i) => {
    for (const f of form.list?.fields ?? []) {
      const value = item[f.name]
      values[`items.${i}.${f.name}`] = typeof value === 'string' ? value : typeof value === 'number' ? value.toFixed(2) : ''
    }
  })
  return form.fromContent ? form.fromContent(content, values) : values
}

/** How many item rows the values hold. */
export function itemCount(form: BlockForm, values: Record<string, string>): number {
  const first = form.list?.fields[0]?.name
  let count = 0
  while (first !== undefined && Object.hasOwn(values, `items.${count}.${first}`)) count++
  return count
}

/** The values with an empty item row added at the end. */
export function withItemAdded(form: BlockForm, values: Record<string, string>): Record<string, string> {
  const next = { ...values }
  const n = itemCount(form, values)
  for (const f of form.list?.fields ?? []) next[`items.${n}.${f.name}`] = ''
  return next
}

/** The values with only the item rows `keep` lets through, renumbered from 0. */
function keepRows(form: BlockForm, values: Record<string, string>, keep: (index: number) => boolean): Record<string, string> {
  const next: Record<string, string> = Object.fromEntries(Object.entries(values).filter(([name]) => !name.startsWith('items.')))
  let to = 0
  for (let from = 0; from < itemCount(form, values); from++) {
    if (!keep(from)) continue
    for (const f of form.list?.fields ?? []) next[`items.${to}.${f.name}`] = values[`items.${from}.${f.name}`] ?? ''
    to++
  }
  return next
}

/** The values without item row `index`, the rows after it moved up. */
export function withItemRemoved(form: BlockForm, values: Record<string, string>, index: number): Record<string, string> {
  return keepRows(form, values, (i) => i !== index)
}

/** The values without the item rows left empty: what is saved, so the errors name the rows as the form then shows them. */
export function withoutEmptyItems(form: BlockForm, values: Record<string, string>): Record<string, string> {
  return keepRows(form, values, (i) => (form.list?.fields ?? []).some((f) => (values[`items.${i}.${f.name}`] ?? '').trim() !== ''))
}

function cleaned(field: BlockField, value: string): string {
  // A text area keeps its inner lines and indentation; only blank lines around it go.
  return field.kind === 'textarea' ? value.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd() : value.trim()
}

function put(target: Record<string, unknown>, key: string, field: BlockField, value: string): void {
  if (value !== '' || !field.optional || field.keepEmpty) target[key] = field.number ? numberOf(value) : value
}

/** A typed decimal ("3,50", "3.5") as a number; anything else stays text, which the schema refuses beside its field. */
function numberOf(value: string): number | string {
  const normal = value.replace(/\s/g, '').replace(',', '.')
  return /^\d+(\.\d{1,2})?$/.test(normal) ? Number(normal) : value
}

/**
 * The content the typed values make: empty optional fields left out, and a group (a button, a
 * picture) sent whole once any of its fields is filled in. Empty item rows go first (withoutEmptyItems).
 */
export function contentFrom(form: BlockForm, values: Record<string, string>): Record<string, unknown> {
  const content: Record<string, unknown> = {}
  const groups = new Map<string, { filled: boolean; fields: Record<string, unknown> }>()
  for (const f of form.fields) {
    const value = cleaned(f, values[f.name] ?? '')
    const [head, tail] = f.name.split('.') as [string, string | undefined]
    if (tail === undefined) {
      put(content, head, f, value)
      continue
    }
    const group = groups.get(head) ?? { filled: false, fields: {} }
    group.filled ||= value !== ''
    put(group.fields, tail, f.omitEmpty ? f : { ...f, optional: false }, value)
    groups.set(head, group)
  }
  for (const [head, group] of groups) if (group.filled) content[head] = group.fields
  if (form.list) {
    const items: Array<Record<string, unknown>> = []
    for (let i = 0; i < itemCount(form, values); i++) {
      const item: Record<string, unknown> = {}
      for (const f of form.list.fields) put(item, f.name, f, cleaned(f, values[`items.${i}.${f.name}`] ?? ''))
      items.push(item)
    }
    content['items'] = items
  }
  return form.toContent ? form.toContent(content, values) : content
}
