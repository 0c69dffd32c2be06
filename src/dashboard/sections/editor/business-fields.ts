import { translator, type Translator } from '../../../domain/i18n/translator.ts'
import { WEEKDAYS, type Weekday } from '../../../domain/sites/block-content.ts'
import { dayName } from '../../../domain/sites/hours.ts'
import { templateCatalogue } from '../../../domain/sites/templates/catalogue.ts'
import type { Business } from '../../../domain/sites/templates/draft.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { choice, errorLine, field, fieldId, type FieldSpec, type FormState } from './form.ts'

/**
 * "Tell us about your business" (DESIGN.md 15): the facts a first draft is made from, on the
 * form that creates a site. Every fact is optional but the type of business; without a type the
 * site starts empty. The week's hours are one range a day (a second, a lunch break, is added in
 * the editor's opening-hours block).
 */

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/

/** The text fields of the business, in the order of the form. */
export function businessSpecs(t: Translator): FieldSpec[] {
  return [
    { name: 'business_type', label: t.t('editor.newSite.type') },
    { name: 'city', label: t.t('editor.newSite.city'), optional: true, maxLength: 100, autocomplete: 'address-level2' },
    {
      name: 'description',
      label: t.t('editor.newSite.description'),
      hint: t.t('editor.newSite.description.hint'),
      optional: true,
      kind: 'textarea',
      rows: 3,
      maxLength: 500,
    },
    {
      name: 'phone',
      label: t.t('editor.newSite.phone'),
      optional: true,
      kind: 'tel',
      maxLength: 40,
      autocomplete: 'tel',
      format: t.t('editor.newSite.phone.format'),
    },
    {
      name: 'email',
      label: t.t('editor.newSite.email'),
      optional: true,
      kind: 'email',
      maxLength: 254,
      autocomplete: 'email',
      format: t.t('editor.newSite.email.format'),
    },
    { name: 'address', label: t.t('editor.newSite.address'), optional: true, maxLength: 200, autocomplete: 'street-address' },
    { name: 'postal_code', label: t.t('editor.newSite.postalCode'), optional: true, maxLength: 20, autocomplete: 'postal-code' },
  ]
}

/** One day's fields, its opening and closing time, named `opens_monday`, `closes_monday`… */
function daySpecs(t: Translator, day: Weekday): [opens: FieldSpec, closes: FieldSpec] {
  const name = dayName(day, t.lang)
  return [
    { name: `opens_${day}`, label: t.t('editor.newSite.opens', { day: name }) },
    { name: `closes_${day}`, label: t.t('editor.newSite.closes', { day: name }) },
  ]
}

/** The week's fields, in the order of the form. */
export function hourSpecs(t: Translator): FieldSpec[] {
  return WEEKDAYS.flatMap((day) => daySpecs(t, day))
}

/** The names of the business's fields (the words aside), and of its facts the draft takes as typed. */
const EN = translator('en')
const NAMES = [...businessSpecs(EN), ...hourSpecs(EN)].map((spec) => spec.name)
const FACTS = businessSpecs(EN)
  .map((spec) => spec.name)
  .filter((name) => name !== 'business_type')

/** The form's empty values of the business. */
export function emptyBusiness(): Record<string, string> {
  return Object.fromEntries(NAMES.map((name) => [name, '']))
}

function timeInput(state: FormState, { name, label }: FieldSpec, t: Translator): SafeHtml {
  const id = fieldId(name)
  const error = state.errors[name]
  return html`<label for="${id}"${error ? html` class="invalid"` : ''}><span class="sr-only">${label}</span><input type="time" id="${id}" name="${name}" value="${state.values[name] ?? ''}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}></label>${error ? errorLine(id, error, t) : ''}`
}

/** The business's part of the form: its type, its facts and its week. */
export function businessFieldset(state: FormState, t: Translator): SafeHtml {
  const [type, ...facts] = businessSpecs(t)
  const types: Array<readonly [string, string]> = [
    ['', t.t('editor.newSite.type.none')],
    ...templateCatalogue(t.lang).data.map((template) => [template.id, template.name] as const),
  ]
  return html`<fieldset class="field business"><legend>${t.t('editor.newSite.business')}</legend>
<p class="hint">${t.t('editor.newSite.business.hint')}</p>
${choice(state, type!, types, t)}
${facts.map((spec) => field(state, spec, t))}
<fieldset class="field hours" aria-describedby="hours-hint"><legend>${t.t('editor.newSite.hours')}</legend>
<p class="hint" id="hours-hint">${t.t('editor.newSite.hours.hint')}</p>
<div class="week">${WEEKDAYS.map((day) => {
    const [opens, closes] = daySpecs(t, day)
    return html`<div class="day"><span class="name" aria-hidden="true">${dayName(day, t.lang)}</span>${timeInput(state, opens, t)}<span aria-hidden="true">–</span>${timeInput(state, closes, t)}</div>`
  })}</div></fieldset>
</fieldset>`
}

/**
 * The business as the draft takes it, from the form's values, or the errors of the week by
 * field (the text facts are checked against the Business schema by the caller). Undefined when
 * no type was chosen: the site starts empty.
 */
export function businessOf(values: Record<string, string>, t: Translator): { business?: Business; hourErrors: Record<string, string> } {
  const hourErrors: Record<string, string> = {}
  const items: Array<{ day: Weekday; opens: string; closes: string }> = []
  for (const day of WEEKDAYS) {
    const opens = values[`opens_${day}`]!.trim()
    const closes = values[`closes_${day}`]!.trim()
    if (!opens && !closes) continue
    if (!opens || !closes) hourErrors[opens ? `closes_${day}` : `opens_${day}`] = t.t('editor.newSite.hours.both')
    else if (!TIME.test(opens)) hourErrors[`opens_${day}`] = t.t('editor.newSite.hours.time')
    else if (!TIME.test(closes)) hourErrors[`closes_${day}`] = t.t('editor.newSite.hours.time')
    else if (closes <= opens) hourErrors[`closes_${day}`] = t.t('editor.newSite.hours.order')
    else items.push({ day, opens, closes })
  }
  const type = values['business_type']
  if (!type) return { hourErrors }
  const given = FACTS.flatMap((name) => (values[name]!.trim() ? [[name, values[name]!.trim()]] : []))
  const business = { type, ...Object.fromEntries(given), ...(items.length ? { opening_hours: { items } } : {}) } as Business
  return { business, hourErrors }
}
