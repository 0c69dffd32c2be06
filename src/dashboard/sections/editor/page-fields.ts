import type { Locale } from '../../../domain/locales.ts'
import type { Translator } from '../../../domain/i18n/translator.ts'
import type { Page } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { localeOptions } from './context.ts'
import { choice, field, specsOf, textOf, type FieldSpec, type FormBody, type FormState } from './form.ts'

/** The fields of a page, shared by the screen that adds one and the one that changes it. */

/** The fields in the page's language. */
function fieldsOf(t: Translator) {
  const TITLE: FieldSpec = { name: 'title', label: t.t('editor.page.title'), hint: t.t('editor.page.title.hint'), maxLength: 200 }
  const PATH: FieldSpec = {
    name: 'path',
    label: t.t('editor.page.path'),
    hint: t.t('editor.page.path.hint'),
    maxLength: 200,
    format: t.t('editor.page.path.format'),
  }
  const LOCALE: FieldSpec = { name: 'locale', label: t.t('editor.page.locale') }
  const DESCRIPTION: FieldSpec = {
    name: 'description',
    label: t.t('editor.page.description'),
    optional: true,
    kind: 'textarea',
    rows: 2,
    maxLength: 500,
    hint: t.t('editor.page.description.hint'),
  }
  /** On a new page the address may be left empty: it is made from the title (transliterated, unique). */
  const NEW_PATH: FieldSpec = { ...PATH, optional: true, hint: t.t('editor.page.path.hintNew') }
  return { TITLE, PATH, LOCALE, DESCRIPTION, NEW_PATH }
}

export function pageSpecs(t: Translator): Map<string, FieldSpec> {
  const { TITLE, PATH, LOCALE, DESCRIPTION } = fieldsOf(t)
  return specsOf([TITLE, PATH, LOCALE, DESCRIPTION])
}

export function pageConflicts(t: Translator) {
  return {
    page_path_taken: ['path', t.t('editor.page.pathTaken')],
    locale_not_on_site: ['locale', t.t('editor.page.localeNotOnSite')],
  } as const
}

export function pageValues(page: Pick<Page, 'title' | 'path' | 'locale' | 'description'>): Record<string, string> {
  return { title: page.title, path: page.path, locale: page.locale, description: page.description }
}

export function pageValuesFrom(body: FormBody): Record<string, string> {
  return {
    title: textOf(body, 'title'),
    path: textOf(body, 'path'),
    locale: textOf(body, 'locale'),
    description: textOf(body, 'description'),
  }
}

/** A typed address as a page path: "/" in front, lower case, no slash at the end. What remains wrong is named by the schema. */
export function normalisedPath(typed: string): string {
  const path = typed.trim().toLowerCase()
  if (path === '' || path === '/') return path
  return `/${path.replace(/^\/+/, '').replace(/\/+$/, '')}`
}

/** The page as the body /v1 takes: what the schema checks and the domain stores. */
export function pageInput(values: Record<string, string>) {
  return {
    title: (values['title'] ?? '').trim(),
    path: normalisedPath(values['path'] ?? ''),
    locale: values['locale'] as Locale,
    description: (values['description'] ?? '').trim(),
  }
}

export function pageFields(t: Translator, state: FormState, site: SiteRecord, options: { isNew?: boolean } = {}): SafeHtml {
  const { TITLE, PATH, LOCALE, DESCRIPTION, NEW_PATH } = fieldsOf(t)
  return html`${field(state, TITLE, t)}
${field(state, options.isNew ? NEW_PATH : PATH, t)}
${site.locales.length > 1 || state.values['locale'] !== site.default_locale ? choice(state, LOCALE, localeOptions(t, site.locales), t) : html`<input type="hidden" name="locale" value="${state.values['locale'] ?? site.default_locale}">`}
${field(state, DESCRIPTION, t)}`
}
