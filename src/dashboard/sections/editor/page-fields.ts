import type { Locale } from '../../../domain/locales.ts'
import type { Page } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { localeOptions } from './context.ts'
import { choice, field, specsOf, textOf, type FieldSpec, type FormBody, type FormState } from './form.ts'

/** The fields of a page, shared by the screen that adds one and the one that changes it. */

export const TITLE: FieldSpec = {
  name: 'title',
  label: 'Title',
  hint: 'Shown at the top of the browser tab and in search results.',
  maxLength: 200,
}
export const PATH: FieldSpec = {
  name: 'path',
  label: 'Address of the page',
  hint: 'The part after your site’s address, such as /opening-hours. The home page is /.',
  maxLength: 200,
  format: 'Use / followed by lower-case letters, digits and hyphens, such as /opening-hours (no spaces).',
}
export const LOCALE: FieldSpec = { name: 'locale', label: 'Language' }
export const DESCRIPTION: FieldSpec = {
  name: 'description',
  label: 'Short description',
  optional: true,
  kind: 'textarea',
  rows: 2,
  maxLength: 500,
  hint: 'One or two sentences that search engines show under the title.',
}
export const PAGE_SPECS = specsOf([TITLE, PATH, LOCALE, DESCRIPTION])

export const PAGE_CONFLICTS = {
  page_path_taken: ['path', 'Another page in this language has this address already. Choose another.'],
  locale_not_on_site: ['locale', 'Your site does not have this language. Add it under Settings first.'],
} as const

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

/** On a new page the address may be left empty: it is made from the title (transliterated, unique). */
const NEW_PATH: FieldSpec = {
  ...PATH,
  optional: true,
  hint: 'The part after your site’s address, such as /opening-hours. The home page is /. Leave it empty to make it from the title.',
}

export function pageFields(state: FormState, site: SiteRecord, options: { isNew?: boolean } = {}): SafeHtml {
  return html`${field(state, TITLE)}
${field(state, options.isNew ? NEW_PATH : PATH)}
${site.locales.length > 1 || state.values['locale'] !== site.default_locale ? choice(state, LOCALE, localeOptions(site.locales)) : html`<input type="hidden" name="locale" value="${state.values['locale'] ?? site.default_locale}">`}
${field(state, DESCRIPTION)}`
}
