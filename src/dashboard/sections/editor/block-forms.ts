import type { BlockContent, BlockType } from '../../../domain/sites/block-content.ts'
import { renderMarkdown } from '../../../domain/sites/markdown.ts'
import type { FastifyReply } from 'fastify'
import { html, raw, type SafeHtml } from '../../../infra/html.ts'
import { contentSecurityPolicy } from '../../../infra/security.ts'
import { textOf, type FieldSpec, type FormBody } from './form.ts'
import { GALLERY_MAX, WEEKDAYS } from '../../../domain/sites/block-content.ts'
import { addressLine, dayName, hoursInShort } from '../../../domain/sites/hours.ts'
import type { MessageKey, Translator } from '../../../domain/i18n/translator.ts'
import type { Locale } from '../../../domain/locales.ts'

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
  /** Said when the list has no item. */
  atLeastOne: string
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

function define<T extends BlockType>(
  form: Omit<BlockForm, 'summary'> & { type: T; summary(content: BlockContent<T>): SafeHtml },
): BlockForm {
  return form as BlockForm
}

/** The block forms in one language: labels, hints and summaries come from the catalogue. */
function formsIn(t: Translator): Record<BlockType, BlockForm> {
  const w = (key: MessageKey, values?: Record<string, string | number>) => t.t(key, values)
  const LINK_FORMAT = w('editor.bf.linkFormat')
  const IMAGE_FORMAT = w('editor.bf.imageFormat')
  const heading = (): BlockField => ({ name: 'heading', label: w('editor.bf.heading'), maxLength: 200 })
  const optionalHeading: BlockField = { name: 'heading', label: w('editor.bf.heading'), optional: true, maxLength: 200 }
  const altHint = w('editor.bf.alt.hint')
  const button = (label: string) => html`<br>${w('editor.bf.button', { label })}`
  const counted = (heading: string | undefined, key: MessageKey, n: number) =>
    html`${heading ? html`<strong>${heading}</strong><br>` : ''}${w(key, { n })}`
  return {
    hero: define({
      type: 'hero',
      label: w('editor.bf.hero'),
      description: w('editor.bf.hero.description'),
      fields: [
        heading(),
        { name: 'subheading', label: w('editor.bf.hero.subheading'), optional: true, kind: 'textarea', rows: 2, maxLength: 500 },
        { name: 'cta.label', label: w('editor.bf.buttonText'), optional: true, maxLength: 80, hint: w('editor.bf.hero.button.hint') },
        { name: 'cta.href', label: w('editor.bf.buttonLink'), optional: true, kind: 'link', maxLength: 2000, format: LINK_FORMAT },
        {
          name: 'image.media_id',
          label: w('editor.bf.fromLibrary'),
          optional: true,
          omitEmpty: true,
          media: true,
          hint: w('editor.bf.hero.image.hint'),
        },
        {
          name: 'image.src',
          label: w('editor.bf.imageAddress'),
          optional: true,
          omitEmpty: true,
          kind: 'link',
          maxLength: 2000,
          format: IMAGE_FORMAT,
        },
        { name: 'image.alt', label: w('editor.bf.alt'), optional: true, omitEmpty: true, maxLength: 300, hint: altHint },
      ],
      summary: (c) =>
        html`<strong>${c.heading}</strong>${c.subheading ? html`<br>${c.subheading}` : ''}${c.cta ? button(c.cta.label) : ''}`,
    }),
    text: define({
      type: 'text',
      label: w('editor.bf.text'),
      description: w('editor.bf.text.description'),
      fields: [
        { name: 'markdown', label: w('editor.bf.text'), kind: 'textarea', rows: 12, maxLength: 20_000, hint: w('editor.bf.text.hint') },
      ],
      summary: (c) => html`<div class="rendered">${raw(renderMarkdown(c.markdown))}</div>`,
    }),
    image: define({
      type: 'image',
      label: w('editor.bf.image'),
      description: w('editor.bf.image.description'),
      fields: [
        { name: 'media_id', label: w('editor.bf.fromLibrary'), optional: true, media: true },
        {
          name: 'src',
          label: w('editor.bf.imageAddress'),
          optional: true,
          kind: 'link',
          maxLength: 2000,
          format: IMAGE_FORMAT,
          hint: w('editor.bf.image.src.hint'),
        },
        { name: 'alt', label: w('editor.bf.alt'), optional: true, maxLength: 300, hint: altHint },
        { name: 'caption', label: w('editor.bf.caption'), optional: true, maxLength: 500 },
      ],
      summary: (c) => html`${w('editor.bf.image.summary', { what: c.caption ?? (c.alt || c.src || w('editor.bf.image.fromLibrary')) })}`,
    }),
    gallery: define({
      type: 'gallery',
      label: w('editor.bf.gallery'),
      description: w('editor.bf.gallery.description', { max: GALLERY_MAX }),
      fields: [optionalHeading],
      list: {
        key: 'images',
        legend: w('editor.bf.gallery.legend'),
        item: w('editor.bf.gallery.item'),
        atLeastOne: w('editor.bf.gallery.atLeastOne'),
        fields: [
          { name: 'media_id', label: w('editor.bf.gallery.item'), media: true, format: w('editor.bf.gallery.choose') },
          { name: 'alt', label: w('editor.bf.gallery.alt'), optional: true, maxLength: 300, hint: w('editor.bf.gallery.alt.hint') },
          { name: 'caption', label: w('editor.bf.caption'), optional: true, maxLength: 500 },
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
        html`${counted(c.heading, 'editor.bf.gallery.count', c.images.length)}${c.images.some((i) => i.caption) ? html`: ${c.images.flatMap((i) => (i.caption ? [i.caption] : [])).join(', ')}` : ''}`,
    }),
    features: define({
      type: 'features',
      label: w('editor.bf.features'),
      description: w('editor.bf.features.description'),
      fields: [optionalHeading],
      list: {
        legend: w('editor.bf.features'),
        item: w('editor.bf.features.item'),
        atLeastOne: w('editor.bf.features.atLeastOne'),
        fields: [
          { name: 'title', label: w('editor.bf.title'), maxLength: 200 },
          { name: 'text', label: w('editor.bf.text'), kind: 'textarea', rows: 3, maxLength: 2000 },
        ],
      },
      summary: (c) => html`${counted(c.heading, 'editor.bf.features.count', c.items.length)}: ${c.items.map((i) => i.title).join(', ')}`,
    }),
    faq: define({
      type: 'faq',
      label: w('editor.bf.faq'),
      description: w('editor.bf.faq.description'),
      fields: [optionalHeading],
      list: {
        legend: w('editor.bf.faq.legend'),
        item: w('editor.bf.faq.item'),
        atLeastOne: w('editor.bf.faq.atLeastOne'),
        fields: [
          { name: 'question', label: w('editor.bf.faq.item'), maxLength: 300 },
          { name: 'answer', label: w('editor.bf.faq.answer'), kind: 'textarea', rows: 3, maxLength: 5000 },
        ],
      },
      summary: (c) => html`${counted(c.heading, 'editor.bf.faq.count', c.items.length)}: ${c.items.map((i) => i.question).join(' · ')}`,
    }),
    cta: define({
      type: 'cta',
      label: w('editor.bf.cta'),
      description: w('editor.bf.cta.description'),
      fields: [
        heading(),
        { name: 'text', label: w('editor.bf.text'), optional: true, kind: 'textarea', rows: 3, maxLength: 1000 },
        { name: 'label', label: w('editor.bf.buttonText'), maxLength: 80 },
        { name: 'href', label: w('editor.bf.buttonLink'), kind: 'link', maxLength: 2000, format: LINK_FORMAT },
      ],
      summary: (c) => html`<strong>${c.heading}</strong>${button(c.label)}`,
    }),
    contact_form: define({
      type: 'contact_form',
      label: w('editor.bf.contactForm'),
      description: w('editor.bf.contactForm.description'),
      fields: [
        optionalHeading,
        {
          name: 'submit_label',
          label: w('editor.bf.buttonText'),
          optional: true,
          maxLength: 80,
          hint: w('editor.bf.contactForm.submit.hint'),
        },
      ],
      summary: (c) =>
        html`${c.heading ?? w('editor.bf.contactForm')}${c.submit_label ? ` ${w('editor.bf.contactForm.summaryButton', { label: c.submit_label })}` : ''}`,
    }),
    opening_hours: define({
      type: 'opening_hours',
      label: w('editor.bf.hours'),
      description: w('editor.bf.hours.description'),
      fields: [
        { ...optionalHeading, hint: w('editor.bf.hours.heading.hint') },
        {
          name: 'exceptions',
          label: w('editor.bf.hours.exceptions'),
          optional: true,
          kind: 'textarea',
          rows: 3,
          maxLength: 5000,
          hint: w('editor.bf.hours.exceptions.hint'),
          format: w('editor.bf.hours.exceptions.format'),
        },
      ],
      list: {
        legend: w('editor.bf.hours.legend'),
        item: w('editor.bf.hours.item'),
        atLeastOne: w('editor.bf.hours.atLeastOne'),
        fields: [
          { name: 'day', label: w('editor.bf.hours.day'), choices: WEEKDAYS.map((d) => [d, dayName(d, t.lang)] as const) },
          {
            name: 'opens',
            label: w('editor.bf.hours.opens'),
            maxLength: 5,
            hint: w('editor.bf.hours.opens.hint'),
            format: w('editor.bf.hours.opens.format'),
          },
          {
            name: 'closes',
            label: w('editor.bf.hours.closes'),
            maxLength: 5,
            hint: w('editor.bf.hours.closes.hint'),
            format: w('editor.bf.hours.closes.format'),
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
            [e['date'], e['closed'] || !e['opens'] ? CLOSED[t.lang] : `${e['opens']}-${e['closes']}`, e['note']].filter(Boolean).join(' '),
          )
          .join('\n'),
      }),
      summary: (c) =>
        html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${hoursInShort(c, t.lang) || w('editor.bf.hours.closedAllWeek')}`,
    }),
    menu: define({
      type: 'menu',
      label: w('editor.bf.menu'),
      description: w('editor.bf.menu.description'),
      fields: [
        optionalHeading,
        {
          name: 'currency',
          label: w('editor.bf.menu.currency'),
          optional: true,
          maxLength: 3,
          hint: w('editor.bf.menu.currency.hint'),
          format: w('editor.bf.menu.currency.format'),
        },
      ],
      list: {
        legend: w('editor.bf.menu.legend'),
        item: w('editor.bf.menu.item'),
        atLeastOne: w('editor.bf.menu.atLeastOne'),
        fields: [
          { name: 'section', label: w('editor.bf.menu.section'), optional: true, maxLength: 200, hint: w('editor.bf.menu.section.hint') },
          { name: 'name', label: w('editor.bf.menu.name'), maxLength: 200 },
          { name: 'description', label: w('editor.bf.menu.itemDescription'), optional: true, kind: 'textarea', rows: 2, maxLength: 1000 },
          {
            name: 'price',
            label: w('editor.bf.menu.price'),
            optional: true,
            number: true,
            maxLength: 12,
            hint: w('editor.bf.menu.price.hint'),
            format: w('editor.bf.menu.price.format'),
          },
        ],
      },
      summary: (c) => html`${counted(c.heading, 'editor.bf.menu.count', c.items.length)}: ${c.items.map((i) => i.name).join(', ')}`,
    }),
    contact_details: define({
      type: 'contact_details',
      label: w('editor.bf.contact'),
      description: w('editor.bf.contact.description'),
      fields: [
        optionalHeading,
        { name: 'address.street', label: w('editor.bf.street'), maxLength: 200, autocomplete: 'address-line1' },
        {
          name: 'address.postal_code',
          label: w('editor.bf.postalCode'),
          optional: true,
          omitEmpty: true,
          maxLength: 20,
          autocomplete: 'postal-code',
        },
        { name: 'address.locality', label: w('editor.bf.locality'), maxLength: 100, autocomplete: 'address-level2' },
        {
          name: 'address.country',
          label: w('editor.bf.country'),
          optional: true,
          omitEmpty: true,
          maxLength: 100,
          autocomplete: 'country-name',
        },
        { name: 'phone', label: w('editor.bf.phone'), kind: 'tel', optional: true, maxLength: 40, format: w('editor.bf.phone.format') },
        { name: 'email', label: w('editor.bf.email'), kind: 'email', optional: true, maxLength: 254, format: w('editor.bf.email.format') },
      ],
      summary: (c) =>
        html`${c.heading ? html`<strong>${c.heading}</strong><br>` : ''}${[c.address ? addressLine(c.address) : '', c.phone ?? '', c.email ?? ''].filter(Boolean).join(' · ')}`,
    }),
    testimonial: define({
      type: 'testimonial',
      label: w('editor.bf.testimonial'),
      description: w('editor.bf.testimonial.description'),
      fields: [
        { name: 'quote', label: w('editor.bf.testimonial.quote'), kind: 'textarea', rows: 3, maxLength: 2000 },
        { name: 'author', label: w('editor.bf.testimonial.author'), maxLength: 200 },
        {
          name: 'role',
          label: w('editor.bf.testimonial.role'),
          optional: true,
          maxLength: 200,
          hint: w('editor.bf.testimonial.role.hint'),
        },
      ],
      summary: (c) => html`${w('editor.bf.testimonial.summary', { quote: c.quote, author: c.author })}`,
    }),
  }
}

/** The word a special day is closed with, as the form writes it back (each is read back by `exceptionFrom`). */
const CLOSED: Record<Locale, string> = { en: 'closed', de: 'geschlossen', fr: 'fermé' }

const forms = new Map<Locale, Record<BlockType, BlockForm>>()

/** The block forms in the page's language (made once per language). */
export function blockForms(t: Translator): Record<BlockType, BlockForm> {
  let found = forms.get(t.lang)
  if (!found) forms.set(t.lang, (found = formsIn(t)))
  return found
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
