import * as cheerio from 'cheerio'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'

type App = TestApp['app']
export type Language = 'en' | 'de' | 'fr'

/** A dashboard page as a browser asking for `lang` (Accept-Language) sees it: its status, html and parsed document. */
export async function pageIn(app: App, cookie: string, url: string, lang: Language, status = 200) {
  const res = await app.inject({ method: 'GET', url, headers: { cookie, 'accept-language': lang } })
  expect(res.statusCode, `${url} in ${lang}: ${res.body.slice(0, 300)}`).toBe(status)
  const $ = cheerio.load(res.body)
  expect($('html').attr('lang')).toBe(lang)
  return { html: res.body, $, main: $('main').text().replace(/\s+/g, ' ') }
}

/** The words people read in a page's main part: its text pieces, labels of buttons and fields included. */
function textPieces($: cheerio.CheerioAPI): string[] {
  const pieces: string[] = []
  $('main')
    .find('*')
    .addBack()
    .contents()
    .each((_i, node) => {
      if (node.type === 'text') pieces.push($(node).text())
    })
  $('main [aria-label], main [placeholder], main [title]').each((_i, el) => {
    for (const name of ['aria-label', 'placeholder', 'title']) pieces.push($(el).attr(name) ?? '')
  })
  return pieces.map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => /\p{L}{3,}\s+\p{L}+\s+\p{L}+/u.test(p))
}

/**
 * The sentences of the English page still shown in the other language's page: the text pieces of
 * at least three words that both pages show word for word (what people typed is left out by the
 * test choosing one-word names for it).
 */
export function leftInEnglish(english: cheerio.CheerioAPI, other: cheerio.CheerioAPI, allowed: readonly string[] = []): string[] {
  const theirs = new Set(textPieces(other))
  return [...new Set(textPieces(english))].filter((piece) => theirs.has(piece) && !allowed.includes(piece))
}

/** The page in English, German and French; asserts no English sentence is left in the German and French ones. */
export async function inEveryLanguage(
  app: App,
  cookie: string,
  url: string,
  options: { status?: number; allowed?: readonly string[] } = {},
) {
  const en = await pageIn(app, cookie, url, 'en', options.status)
  const de = await pageIn(app, cookie, url, 'de', options.status)
  const fr = await pageIn(app, cookie, url, 'fr', options.status)
  expect(leftInEnglish(en.$, de.$, options.allowed), `${url} in German`).toEqual([])
  expect(leftInEnglish(en.$, fr.$, options.allowed), `${url} in French`).toEqual([])
  return { en, de, fr }
}
