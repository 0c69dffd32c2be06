import { Ajv } from 'ajv'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { classify, errors, type ValidationIssue } from '../../../errors.ts'
import { ajvFormats } from '../../../infra/ajv-formats.ts'
import { etagOf } from '../../../infra/etag.ts'
import { translator, type Translator } from '../../../domain/i18n/translator.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { recordRefusal } from '../../audited-change.ts'
import { planRefusal } from '../../refusal-words.ts'

/**
 * What the editor's forms share: each field with its label, hint and error tied to it
 * (aria-describedby, aria-invalid), a summary of the problems linking to the fields, the input
 * kept on every refusal, the resource's version carried in the form (its /v1 ETag), and the
 * refusals of the domain (a field's conflict, a stale form, the plan) turned into words a person
 * can act on.
 */

export interface FormState {
  /** What the form shows, by field name (checkbox groups: the checked values joined by commas). */
  values: Record<string, string>
  errors: Record<string, string>
  /** After a stale form: what is saved now, where it differs from what was typed. */
  saved?: Record<string, string>
  /** A problem of the whole form (a stale version, the plan's limit). */
  problem?: SafeHtml
  /** Shown to a member who may not change it (a viewer): the values, in controls that take no input. */
  readOnly?: boolean
}

export function formState(values: Record<string, string>, options: { readOnly?: boolean } = {}): FormState {
  return { values, errors: {}, ...(options.readOnly ? { readOnly: true } : {}) }
}

/**
 * A field as a page shows it: its label, hint and format already in the page's language. The
 * helpers below take the page's translator last for their own words ("(optional)", "Error:");
 * without it they speak English.
 */
export interface FieldSpec {
  name: string
  label: string
  hint?: string
  kind?: 'text' | 'textarea' | 'email' | 'tel' | 'link'
  /** Optional fields say so in their label. */
  optional?: boolean
  /** A field of a group whose legend says the group is optional (the hero's button): neither required nor marked on its own. */
  inOptionalGroup?: boolean
  maxLength?: number
  rows?: number
  autocomplete?: string
  /** Said when the value is not in the form the field needs. */
  format?: string
}

const ENGLISH = translator('en')

/** " (optional)" after an optional field's label. */
function optionalMark(t: Translator): SafeHtml {
  return html` <span class="optional">${t.t('editor.form.optional')}</span>`
}

/** The error beside a field, named as one for screen readers. */
export function errorLine(id: string, error: string, t: Translator = ENGLISH): SafeHtml {
  return html`<p class="field-error" id="${id}-error"><span class="sr-only">${t.t('editor.form.errorPrefix')} </span>${error}</p>`
}

/** The form body as it arrives: text fields, or repeated names (checkboxes) as arrays. */
export type FormBody = Record<string, string | string[] | undefined>

/** Any form of the editor: known control fields plus the screen's own; the route's validator refuses what cannot be stored. */
/** The query of a page that shows a notice after a POST-redirect-GET (`?done=…`); other parameters pass as they did. */
export const Done = Type.Object({ done: Type.Optional(Type.String()) })

export const FormBodySchema = Type.Record(
  Type.String({ maxLength: 100 }),
  Type.Union([Type.String({ maxLength: 40_000 }), Type.Array(Type.String({ maxLength: 200 }), { maxItems: 20 })]),
  {
    maxProperties: 400,
  },
)

/** One text value of a form body (the first, if a name was repeated). */
export function textOf(body: FormBody, name: string): string {
  const value = body[name]
  return (Array.isArray(value) ? value[0] : value) ?? ''
}

/** All values of a repeated name (checkboxes). */
export function listOf(body: FormBody, name: string): string[] {
  const value = body[name]
  return value === undefined ? [] : [value].flat()
}

export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`
}

function describedBy(id: string, parts: { hint?: unknown; saved?: unknown; error?: unknown }): string {
  return [parts.hint ? `${id}-hint` : '', parts.saved !== undefined ? `${id}-saved` : '', parts.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ')
}

function notes(
  t: Translator,
  id: string,
  hint: string | undefined,
  saved: string | undefined,
  error: string | undefined,
): { before: SafeHtml; after: SafeHtml } {
  return {
    before: html`${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}${error ? errorLine(id, error, t) : ''}`,
    after:
      saved !== undefined
        ? html`<p class="saved" id="${id}-saved">${t.t('editor.form.savedMeanwhile')} ${saved === '' ? html`<em>${t.t('editor.form.empty')}</em>` : saved}</p>`
        : html``,
  }
}

/** A labelled text field (or text area) with its hint, its error and, after a stale form, the saved value. */
export function field(state: FormState, spec: FieldSpec, t: Translator = ENGLISH): SafeHtml {
  const id = fieldId(spec.name)
  const error = state.errors[spec.name]
  const saved = state.saved?.[spec.name]
  const value = state.values[spec.name] ?? ''
  const by = describedBy(id, { hint: spec.hint, saved, error })
  const kind = spec.kind ?? 'text'
  const required = !spec.optional && !spec.inOptionalGroup
  const attrs = html` id="${id}" name="${spec.name}"${required ? html` aria-required="true"` : ''}${spec.maxLength ? html` maxlength="${spec.maxLength}"` : ''}${by ? html` aria-describedby="${by}"` : ''}${error ? html` aria-invalid="true"` : ''}${spec.autocomplete ? html` autocomplete="${spec.autocomplete}"` : ''}${state.readOnly ? html` readonly` : ''}`
  const { before, after } = notes(t, id, spec.hint, saved, error)
  const control =
    kind === 'textarea'
      ? html`<textarea${attrs} rows="${spec.rows ?? 4}">${value}</textarea>`
      : html`<input${attrs} type="${kind === 'link' ? 'text' : kind}"${kind === 'link' ? html` inputmode="url" spellcheck="false"` : ''} value="${value}">`
  return html`<div class="field${error ? ' invalid' : ''}"><label for="${id}">${spec.label}${spec.optional && !spec.inOptionalGroup ? optionalMark(t) : ''}</label>${before}${control}${after}</div>`
}

/** A choice of one among a few (a select). */
export function choice(
  state: FormState,
  spec: FieldSpec,
  options: ReadonlyArray<readonly [value: string, label: string]>,
  t: Translator = ENGLISH,
): SafeHtml {
  const id = fieldId(spec.name)
  const error = state.errors[spec.name]
  const saved = state.saved?.[spec.name]
  const by = describedBy(id, { hint: spec.hint, saved, error })
  const { before, after } = notes(t, id, spec.hint, saved, error)
  const current = state.values[spec.name] ?? ''
  return html`<div class="field${error ? ' invalid' : ''}"><label for="${id}">${spec.label}</label>${before}<select id="${id}" name="${spec.name}"${by ? html` aria-describedby="${by}"` : ''}${error ? html` aria-invalid="true"` : ''}${state.readOnly ? html` disabled` : ''}>${options.map(
    ([value, label]) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`,
  )}</select>${after}</div>`
}

/** A group of checkboxes under one legend; the checked values are kept joined by commas. */
export function checks(
  state: FormState,
  spec: FieldSpec,
  options: ReadonlyArray<readonly [value: string, label: string]>,
  t: Translator = ENGLISH,
): SafeHtml {
  const id = fieldId(spec.name)
  const error = state.errors[spec.name]
  const saved = state.saved?.[spec.name]
  const { before, after } = notes(t, id, spec.hint, saved, error)
  const checked = new Set((state.values[spec.name] ?? '').split(',').filter(Boolean))
  const by = describedBy(id, { hint: spec.hint, saved, error })
  return html`<fieldset class="field${error ? ' invalid' : ''}" id="${id}"${by ? html` aria-describedby="${by}"` : ''}><legend>${spec.label}</legend>${before}${options.map(
    ([value, label]) =>
      html`<label class="check"><input type="checkbox" name="${spec.name}" value="${value}"${checked.has(value) ? html` checked` : ''}${error ? html` aria-invalid="true"` : ''}${state.readOnly ? html` disabled` : ''}> ${label}</label>`,
  )}${after}</fieldset>`
}

/** A yes/no switch (a checkbox sending "on"). */
export function toggle(state: FormState, spec: FieldSpec, t: Translator = ENGLISH): SafeHtml {
  const id = fieldId(spec.name)
  const saved = state.saved?.[spec.name]
  const by = describedBy(id, { hint: spec.hint, saved })
  const shownSaved = saved === undefined ? undefined : t.t(saved === 'on' ? 'editor.form.on' : 'editor.form.off')
  const { before, after } = notes(t, id, spec.hint, shownSaved, undefined)
  return html`<div class="field"><label class="check"><input type="checkbox" id="${id}" name="${spec.name}" value="on"${state.values[spec.name] === 'on' ? html` checked` : ''}${by ? html` aria-describedby="${by}"` : ''}${state.readOnly ? html` disabled` : ''}> ${spec.label}</label>${before}${after}</div>`
}

/**
 * The problems of a refused form, first on the page: the whole form's problem and each wrong
 * field by its label, linked to it, in the order of the form (`labels` is given in that order;
 * the schema reports in its own). Announced when the page loads (role="alert").
 */
export function problems(state: FormState, labels: Record<string, string>, t: Translator = ENGLISH): SafeHtml {
  const order = Object.keys(labels)
  const place = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length)
  const fields = Object.entries(state.errors).sort(([a], [b]) => place(a) - place(b))
  if (!state.problem && fields.length === 0) return html``
  return html`<div class="error problems" role="alert" id="problems"><h2>${fields.length ? t.t('editor.form.problems', { count: fields.length }) : t.t('editor.form.nothingSaved')}</h2>
${state.problem ? html`<p>${state.problem}</p>` : ''}
${fields.length ? html`<ul>${fields.map(([name, message]) => html`<li><a href="#${fieldId(name)}">${labels[name] ?? name}: ${message}</a></li>`)}</ul>` : ''}</div>`
}

/** The hidden fields every editor form carries: the CSRF token and, for a change, the resource's version. */
export function hidden(csrf: string, version?: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}">${version === undefined ? '' : html`<input type="hidden" name="_version" value="${version}">`}`
}

/**
 * The submit button that Enter in a text field presses: the first in the form, so it must be the
 * save button, not "add another item" or "remove". Not shown; the visible save button does the same.
 */
export function defaultSave(label: string): SafeHtml {
  return html`<button type="submit" name="_do" value="save" hidden tabindex="-1">${label}</button>`
}

/** The version of a resource: the ETag /v1 answers for the same view of it. */
export function versionOf(view: unknown): string {
  return etagOf(view)
}

/** A check for the domain's locked update: the form's version must still be the resource's. */
export function sameVersion<T>(version: string, view: (current: T) => unknown): (current: T) => void {
  return (current) => {
    if (versionOf(view(current)) !== version) throw new errors.preconditionFailed('The resource has changed since the form was opened')
  }
}

// Checking input: the schemas /v1 validates with, every failing field at once.

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false })
ajvFormats(ajv)
const compiled = new WeakMap<TSchema, ReturnType<Ajv['compile']>>()

export function issuesOf(schema: TSchema, value: unknown): ValidationIssue[] {
  let validate = compiled.get(schema)
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)))
  return validate(value) ? [] : ((validate.errors ?? []) as ValidationIssue[])
}

function pathOf(issue: ValidationIssue): string[] {
  const path = issue.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
  const missing = issue.params['missingProperty']
  return typeof missing === 'string' ? [...path, missing] : path
}

function plainMessage(t: Translator, issue: ValidationIssue, spec: FieldSpec | undefined): string {
  const limit = Number(issue.params['limit'])
  switch (issue.keyword) {
    case 'required':
      return t.t('editor.form.required')
    case 'minLength':
      return limit <= 1 ? t.t('editor.form.required') : t.t('editor.form.minLength', { limit })
    case 'maxLength':
      return t.t('editor.form.maxLength', { limit })
    case 'minItems':
      return spec?.format ?? t.t('editor.form.minItems')
    case 'maxItems':
      return t.t('editor.form.maxItems', { limit })
    case 'uniqueItems':
      return t.t('editor.form.uniqueItems')
    case 'pattern':
    case 'format':
      return spec?.format ?? t.t('editor.form.badFormat')
    case 'type':
    case 'minimum':
    case 'maximum':
      // A number field given words, or a number out of range (a price).
      return spec?.format ?? t.t('editor.form.offered')
    default:
      return t.t('editor.form.offered')
  }
}

/**
 * Each failing field's message, by field name. A field is named by its path in the checked value
 * (`cta.href`, `items.2.title`); `nameOf` maps a path to another name, and a path with no field
 * of its own falls to the nearest field above it (`locales.1` → `locales`).
 */
export function fieldErrors(
  issues: readonly ValidationIssue[],
  specs: ReadonlyMap<string, FieldSpec>,
  nameOf: (path: string) => string = (path) => path,
  t: Translator = ENGLISH,
): Record<string, string> {
  const found: Record<string, string> = {}
  for (const issue of issues) {
    const path = pathOf(issue)
    let name = ''
    for (let n = path.length; n > 0 && !name; n--) {
      const candidate = nameOf(path.slice(0, n).join('.'))
      if (specs.has(candidate)) name = candidate
    }
    name ||= nameOf(path.join('.'))
    // anyOf/oneOf report each branch; the first message of a field is the one a person can act on.
    found[name] ??= plainMessage(t, issue, specs.get(name))
  }
  return found
}

export function specsOf(...groups: ReadonlyArray<readonly FieldSpec[]>): Map<string, FieldSpec> {
  return new Map(groups.flat().map((spec) => [spec.name, spec]))
}

export function labelsOf(specs: ReadonlyMap<string, FieldSpec>): Record<string, string> {
  return Object.fromEntries([...specs].map(([name, spec]) => [name, spec.label]))
}

// Refusals of the domain, on the form that asked.

/** The way up after a plan's refusal: the billing page, or the plans compared. */
export function upgradeLinks(t: Translator = ENGLISH): SafeHtml {
  return t.rich(
    'editor.form.upgrade',
    {},
    { billing: (words) => html`<a href="/app/billing">${words}</a>`, plans: (words) => html`<a href="/#plans">${words}</a>` },
  )
}

/** A refusal of the domain as the form shows it, or undefined for an error the dashboard's error page handles. */
export interface Refusal {
  status: number
  errors: Record<string, string>
  problem?: SafeHtml
  stale: boolean
}

/**
 * Reads a domain error: a conflict of one field (`fields` maps its code to the field, with an
 * optional plainer message), a stale version, or the plan's limit with the way up.
 */
export function refusalOf(
  error: unknown,
  fields: Record<string, readonly [field: string, message?: string]>,
  what: 'site' | 'page' | 'block',
  t: Translator = ENGLISH,
): Refusal | undefined {
  if (!(error instanceof Error)) return undefined
  const { status, code, detail } = classify(error as FastifyError)
  const target = fields[code]
  if (target) return { status, errors: { [target[0]]: target[1] ?? detail }, stale: false }
  if (code === 'precondition_failed') {
    return {
      status: 412,
      errors: {},
      stale: true,
      problem: html`${t.t('editor.form.stale', { what })}`,
    }
  }
  if (code === 'plan_limit' || code === 'plan_required')
    return { status, errors: {}, stale: false, problem: html`${planRefusal(t, { code, detail }, error)} ${upgradeLinks(t)}` }
  return undefined
}

/** The state of a refused form: the input kept, the refusal's errors, and after a stale form what is saved now where it differs. */
export function refusedState(
  values: Record<string, string>,
  refusal: Pick<Refusal, 'errors' | 'problem'>,
  saved?: Record<string, string>,
): FormState {
  const differing =
    saved === undefined ? undefined : Object.fromEntries(Object.entries(saved).filter(([name, value]) => (values[name] ?? '') !== value))
  return {
    values,
    errors: refusal.errors,
    ...(refusal.problem ? { problem: refusal.problem } : {}),
    ...(differing ? { saved: differing } : {}),
  }
}

/** Records a refused form in the audit log (as the error handler does for other refusals) and sets its status. */
export async function refused(request: FastifyRequest, reply: FastifyReply, status: number): Promise<void> {
  await recordRefusal(request, status)
  reply.code(status)
}
