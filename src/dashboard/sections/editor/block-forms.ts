import type { BlockContent, BlockType } from '../../../domain/sites/block-content.ts'
import { renderMarkdown } from '../../../domain/sites/markdown.ts'
import type { FastifyReply } from 'fastify'
import { html, raw, type SafeHtml } from '../../../infra/html.ts'
import { contentSecurityPolicy } from '../../../infra/security.ts'
import { textOf, type FieldSpec, type FormBody } from './form.ts'

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

/** A field of a block form; `keepEmpty`: sent even when empty (an image's alt text may be empty, but is always given). */
export type BlockField = FieldSpec & { keepEmpty?: boolean }

export interface ItemList {
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
        name: 'image.src',
        label: 'Picture address',
        optional: true,
        kind: 'link',
        maxLength: 2000,
        format: IMAGE_FORMAT,
        hint: 'Leave empty for no picture.',
      },
      {
        name: 'image.alt',
        label: 'What the picture shows',
        optional: true,
        keepEmpty: true,
        maxLength: 300,
        hint: 'For people who cannot see it. Leave empty if it is only decoration.',
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
      {
        name: 'src',
        label: 'Picture address',
        kind: 'link',
        maxLength: 2000,
        format: IMAGE_FORMAT,
        hint: 'The web address of the picture, starting with https://, or a path on your site.',
      },
      {
        name: 'alt',
        label: 'What the picture shows',
        optional: true,
        keepEmpty: true,
        maxLength: 300,
        hint: 'For people who cannot see it. Leave empty if it is only decoration.',
      },
      { name: 'caption', label: 'Caption', optional: true, maxLength: 500 },
    ],
    summary: (c) => html`Picture: ${c.caption ?? (c.alt || c.src)}`,
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
    for (const f of form.list?.fields ?? [])
      values[`items.${i}.${f.name}`] = typeof item[f.name] === 'string' ? (item[f.name] as string) : ''
  })
  return values
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
  if (value !== '' || !field.optional || field.keepEmpty) target[key] = value
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
    put(group.fields, tail, { ...f, optional: false }, value)
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
  return content
}
