import { describe, expect, it } from 'vitest'
import { checkBlockContent, contentFits } from '../../src/domain/sites/block-content.ts'
import { hoursInShort, openingHoursSpecification } from '../../src/domain/sites/hours.ts'
import { renderMarkdown } from '../../src/domain/sites/markdown.ts'
import { renderSite, type Block, type RenderPage } from '../../src/sites/render/index.ts'
import { fixtureRenderSite } from '../fixtures/hosted/content.ts'

const hours: Extract<Block, { type: 'opening_hours' }>['content'] = {
  items: [
    ...(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const).flatMap((day) => [
      { day, opens: '07:00', closes: '13:00' },
      { day, opens: '14:00', closes: '18:30' },
    ]),
    { day: 'saturday', opens: '07:00', closes: '12:00' },
  ],
  exceptions: [{ date: '2026-12-24', closed: true, note: 'Heiligabend' }],
}
const menu: Extract<Block, { type: 'menu' }>['content'] = {
  items: [
    { section: 'Brot', name: 'Roggenbrot', description: '1 kg, Sauerteig', price: 4.5 },
    { section: 'Brot', name: 'Dinkelbrot', price: 5 },
    { section: 'Kuchen', name: 'Apfelkuchen', price: 3.2 },
  ],
}
const contact: Extract<Block, { type: 'contact_details' }>['content'] = {
  address: { street: 'Marktstraße 12', postal_code: '20095', locality: 'Hamburg', country: 'Deutschland' },
  phone: '+49 40 1234567',
  email: 'hallo@baeckerei.example',
}

function page(locale: 'de' | 'en' | 'fr', blocks: Block[]): RenderPage {
  return { path: '/', locale, title: 'Start', description: 'Die Bäckerei', updatedAt: new Date('2026-11-20T10:00:00Z'), blocks }
}

function render(locale: 'de' | 'en' | 'fr', blocks: Block[]) {
  const site = fixtureRenderSite('https://bakery.example', { defaultLocale: locale, locales: [locale], consent: {} })
  const files = renderSite(site, [page(locale, blocks)])
  const html = files.find((f) => f.path === '/')!.body
  const md = files.find((f) => f.path === '/index.md')!.body
  const ld = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)![1]!) as { '@graph': Array<Record<string, any>> } // eslint-disable-line @typescript-eslint/no-explicit-any
  return { html, md, ld }
}

describe('business blocks', () => {
  it('check their content: days, times, dates, prices, phone and email', () => {
    expect(contentFits('opening_hours', hours)).toBe(true)
    expect(contentFits('menu', menu)).toBe(true)
    expect(contentFits('contact_details', contact)).toBe(true)
    expect(contentFits('opening_hours', { items: [{ day: 'someday', opens: '07:00', closes: '12:00' }] })).toBe(false)
    expect(contentFits('opening_hours', { items: [{ day: 'monday', opens: '7 am', closes: '12:00' }] })).toBe(false)
    expect(
      contentFits('opening_hours', { items: [{ day: 'monday', opens: '07:00', closes: '12:00' }], exceptions: [{ date: '24.12.' }] }),
    ).toBe(false)
    expect(contentFits('menu', { items: [{ name: 'Brot', price: -1 }] })).toBe(false)
    expect(contentFits('menu', { items: [{ name: 'Brot', price: '4,50' }] })).toBe(false)
    expect(contentFits('contact_details', { phone: 'call us' })).toBe(false)
    expect(() => checkBlockContent('menu', { items: [] })).toThrow(/items/)
  })

  it('render opening hours as a table in the page’s language, the week in short, and openingHoursSpecification in the JSON-LD', () => {
    const { html, md, ld } = render('de', [{ type: 'opening_hours', content: hours }])
    expect(html).toContain('<tr><th scope="row">Montag</th><td>07:00–13:00, 14:00–18:30</td></tr>')
    expect(html).toContain('<tr><th scope="row">Sonntag</th><td>Geschlossen</td></tr>')
    expect(html).toContain('24. Dezember 2026: Geschlossen (Heiligabend)')
    expect(md).toContain('- Samstag: 07:00–12:00')
    expect(hoursInShort(hours, 'de')).toBe('Mo–Fr 07:00–13:00, 14:00–18:30 · Sa 07:00–12:00')
    expect(hoursInShort(hours, 'en')).toBe('Mon–Fri 7:00 AM–1:00 PM, 2:00 PM–6:30 PM · Sat 7:00 AM–12:00 PM')
    const business = ld['@graph'][0]!
    expect(business['@type']).toBe('LocalBusiness')
    expect(business['openingHoursSpecification']).toEqual(openingHoursSpecification(hours))
    expect(business['openingHoursSpecification'][0]).toEqual({
      '@type': 'OpeningHoursSpecification',
      dayOfWeek: [
        'https://schema.org/Monday',
        'https://schema.org/Tuesday',
        'https://schema.org/Wednesday',
        'https://schema.org/Thursday',
        'https://schema.org/Friday',
      ],
      opens: '07:00',
      closes: '13:00',
    })
    expect(business['openingHoursSpecification'].at(-1)).toMatchObject({ validFrom: '2026-12-24', opens: '00:00', closes: '00:00' })
  })

  it('render a menu in sections with prices in the page’s locale, and as a schema.org Menu with offers', () => {
    const de = render('de', [{ type: 'menu', content: menu }])
    expect(de.html).toContain('<h3>Brot</h3>')
    expect(de.html).toContain('<span class="price">4,50\u00a0€</span>')
    expect(de.md).toContain('- **Roggenbrot** — 4,50\u00a0€: 1 kg, Sauerteig')
    const menuLd = de.ld['@graph'].find((n) => n['@type'] === 'Menu')!
    expect(menuLd['hasMenuSection'][0]).toMatchObject({
      '@type': 'MenuSection',
      name: 'Brot',
      hasMenuItem: [
        { '@type': 'MenuItem', name: 'Roggenbrot', offers: { '@type': 'Offer', price: '4.50', priceCurrency: 'EUR' } },
        expect.anything(),
      ],
    })
    expect(render('en', [{ type: 'menu', content: menu }]).html).toContain('€4.50')
    expect(render('fr', [{ type: 'menu', content: { ...menu, currency: 'CHF' } }]).html).toMatch(/4,50\s?CHF/)
  })

  it('render contact details with a link to OpenStreetMap, tel: and mailto:, and no embed', () => {
    const { html } = render('fr', [{ type: 'contact_details', content: contact }])
    expect(html).toContain('href="https://www.openstreetmap.org/search?query=Marktstra%C3%9Fe%2012%2C%2020095%20Hamburg%2C%20Deutschland"')
    expect(html).toContain('Voir sur la carte')
    expect(html).toContain('href="tel:+49401234567"')
    expect(html).toContain('href="mailto:hallo@baeckerei.example"')
    expect(html).not.toMatch(/<iframe|<script src/)
  })

  it('says the business in the footer (address, phone, email, the hours in short) and offers a call button on phones', () => {
    const { html } = render('de', [{ type: 'opening_hours', content: hours }])
    const footer = /<footer>(.*)<\/footer>/s.exec(html)![1]!
    expect(footer).toContain('<h2>Öffnungszeiten</h2><p>Mo–Fr 07:00–13:00, 14:00–18:30 · Sa 07:00–12:00</p>')
    expect(footer).toContain('Market Street 12, 20095 Hamburg, DE')
    expect(footer).toContain('<a href="tel:+49401234567">+49 40 1234567</a>')
    expect(html).toContain('<a class="call" href="tel:+49401234567">Anrufen</a>')
    expect(html).toContain('a.call{display:none')
  })

  it('keeps a line break typed on its own line in a text block', () => {
    expect(renderMarkdown('Mo–Fr 7–18 Uhr\nSa 7–12 Uhr\n\nSo geschlossen')).toBe(
      '<p>Mo–Fr 7–18 Uhr<br>\nSa 7–12 Uhr</p>\n<p>So geschlossen</p>\n',
    )
  })
})
