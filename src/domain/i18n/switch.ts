import { html, type SafeHtml } from '../../infra/html.ts'
import { LOCALES } from '../locales.ts'
import { LANGUAGE_NAMES, type Translator } from './translator.ts'

/**
 * The language switch on every page for people: a form posting to /language (CSRF token, the page
 * to come back to), one button per language, each named in its own language. Works without scripts.
 */
export function languageSwitch(t: Translator, csrf: string, returnTo: string): SafeHtml {
  return html`<form method="post" action="/language" class="languages" aria-label="${t.t('language.switch')}"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="return_to" value="${returnTo}">${LOCALES.map(
    (lang) =>
      html`<button type="submit" name="lang" value="${lang}" lang="${lang}"${lang === t.lang ? html` aria-pressed="true" class="current"` : html` aria-pressed="false"`}>${LANGUAGE_NAMES[lang]}</button>`,
  )}</form>`
}
