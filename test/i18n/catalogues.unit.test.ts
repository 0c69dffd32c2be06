import { IntlMessageFormat } from 'intl-messageformat'
import { describe, expect, it } from 'vitest'
import { CATALOGUES, chooseLanguage, negotiateLanguage, translator } from '../../src/domain/i18n/translator.ts'
import { LOCALES } from '../../src/domain/locales.ts'

type Element = { type: number; value?: string; options?: Record<string, { value: Element[] }>; children?: Element[] }

/** The placeholders and tags of an ICU message, plural and select branches and tag contents included. */
function namesIn(elements: Element[], names = new Set<string>()): Set<string> {
  for (const element of elements) {
    // 0 is literal text, 7 the # of a plural: neither names anything.
    if (element.type !== 0 && element.type !== 7 && element.value) names.add(`${element.type === 8 ? 'tag' : 'value'}:${element.value}`)
    for (const option of Object.values(element.options ?? {})) namesIn(option.value, names)
    if (element.children) namesIn(element.children, names)
  }
  return names
}

const placeholders = (message: string, lang: string) => [...namesIn(new IntlMessageFormat(message, lang).getAst() as Element[])].sort()

describe('the message catalogues', () => {
  const keys = Object.keys(CATALOGUES.en).sort()

  it.each(LOCALES)('%s has every key of every other catalogue and no other', (lang) => {
    expect(Object.keys(CATALOGUES[lang]).sort()).toEqual(keys)
  })

  it.each(LOCALES)('%s uses the same placeholders and tags as English in every message, and each parses', (lang) => {
    const differing = keys.filter(
      (key) =>
        placeholders(CATALOGUES[lang][key as keyof typeof CATALOGUES.en], lang).join() !==
        placeholders(CATALOGUES.en[key as keyof typeof CATALOGUES.en], 'en').join(),
    )
    expect(differing).toEqual([])
  })

  it('has no message left in English in German or French, but names and shared words', () => {
    const same = (lang: 'de' | 'fr') =>
      keys.filter((key) => {
        const message = CATALOGUES[lang][key as keyof typeof CATALOGUES.en]
        return message === CATALOGUES.en[key as keyof typeof CATALOGUES.en] && /[a-z]{3,}\s+[a-z]{3,}\s+[a-z]{3,}/i.test(message)
      })
    expect(same('de')).toEqual([])
    expect(same('fr')).toEqual([])
  })

  it('formats plurals, dates, numbers and prices for the language', () => {
    expect(translator('de').t('signin.code.wrong', { left: 1 })).toBe('Der Code stimmt nicht. Sie haben noch einen Versuch.')
    expect(translator('fr').t('signin.code.wrong', { left: 3 })).toBe('Ce code n’est pas le bon. Il vous reste 3 essais.')
    expect(translator('de').price(1900)).toBe('19,00\u00a0€')
    expect(translator('fr').price(1900)).toBe('19,00\u00a0€')
    expect(translator('en').price(1900)).toBe('€19.00')
    expect(translator('de').number(12345)).toBe('12.345')
    expect(translator('fr').date('2026-11-28T10:00:00Z')).toBe('28 nov. 2026')
    expect(translator('de').date('2026-11-28T10:00:00Z')).toBe('28.11.2026')
  })

  it('escapes what a message carries into markup, and only the tags code gives become markup', async () => {
    const { html } = await import('../../src/infra/html.ts')
    const out = translator('en').rich('signin.out.text', {}, { link: (words) => html`<a href="/signin">${words}</a>` })
    expect(out.value).toBe('You are not signed in. <a href="/signin">Sign in</a>')
    expect(translator('en').t('signin.done.text', { email: '<b>x</b>' })).toBe('You are signed in as <b>x</b>.')
    expect(html`${translator('en').t('signin.done.text', { email: '<b>x</b>' })}`.value).toContain('&lt;b&gt;')
  })

  it('chooses the person’s setting, then the browser’s choice, then Accept-Language, then English', () => {
    expect(chooseLanguage({ setting: 'fr', cookie: 'de', acceptLanguage: 'en' })).toBe('fr')
    expect(chooseLanguage({ setting: null, cookie: 'de', acceptLanguage: 'fr' })).toBe('de')
    expect(chooseLanguage({ acceptLanguage: 'it-IT, fr-CH;q=0.8, de;q=0.9' })).toBe('de')
    expect(chooseLanguage({ acceptLanguage: 'it, es' })).toBe('en')
    expect(chooseLanguage({ setting: 'xx', cookie: 'zz' })).toBe('en')
    expect(negotiateLanguage('fr;q=0, de;q=0.1')).toBe('de')
    expect(negotiateLanguage(undefined)).toBeUndefined()
  })
})
