import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { llmsTxtProblems } from '../../src/domain/seo-audit/rules-geo.ts'
import { renderSite, NOT_FOUND_PATH, type RenderedFile } from '../../src/sites/render/index.ts'
import { relativePath } from '../../src/sites/render/paths.ts'
import { englishPages, fixtureRenderSite, germanPages, HOSTILE, hostilePage } from '../fixtures/hosted/content.ts'

const now = new Date('2026-11-20T10:00:00Z')
const origin = 'https://bakery.example'

function byPath(files: RenderedFile[]): Map<string, RenderedFile> {
  return new Map(files.map((f) => [f.path, f]))
}

describe('renderSite', () => {
  const files = byPath(renderSite(fixtureRenderSite(origin), [...englishPages(now), ...germanPages(now)]))
  const page = (path: string) => cheerio.load(files.get(path)!.body)

  it('renders every page of every locale, their Markdown, the crawler files and a 404 page', () => {
    expect([...files.keys()].sort()).toEqual(
      [
        '/',
        '/index.md',
        '/about',
        '/about.md',
        '/contact',
        '/contact.md',
        '/privacy',
        '/privacy.md',
        '/de/',
        '/de/index.md',
        '/de/about',
        '/de/about.md',
        '/de/privacy',
        '/de/privacy.md',
        '/de/impressum',
        '/de/impressum.md',
        '/sitemap.xml',
        '/robots.txt',
        '/llms.txt',
        NOT_FOUND_PATH,
      ].sort(),
    )
    expect(files.get('/')!.contentType).toBe('text/html; charset=utf-8')
    expect(files.get('/about.md')!.contentType).toBe('text/markdown; charset=utf-8')
  })

  it('adds an Impressum to a site in German that has none, and links the legal pages of each language from every footer', () => {
    const impressum = page('/de/impressum')
    expect(impressum('html').attr('lang')).toBe('de')
    expect(impressum('h1').text()).toBe('Impressum')
    const text = impressum('main').text()
    for (const fact of ['Angaben gemäß § 5 DDG', 'Hansen Bakery', 'Market Street 12', '20095 Hamburg', 'Telefon: +49 40 1234567'])
      expect(text).toContain(fact)
    const footerLinks = (path: string) =>
      page(path)('footer nav[aria-label] a:not([hreflang])')
        .map((_i, a) => `${page(path)(a).text()} ${page(path)(a).attr('href')}`)
        .get()
    expect(footerLinks('/de/about')).toEqual(['Impressum impressum', 'Datenschutz der Bäckerei Hansen privacy'])
    expect(footerLinks('/about')).toEqual(['Privacy at Hansen Bakery privacy'])
    expect(page('/de/impressum')('footer a[aria-current=page]').text()).toBe('Impressum')
    // Out of the menu and the sitemap, as the other pages the release adds.
    expect(page('/de/about')('header nav').text()).not.toContain('Impressum')
    expect(files.get('/sitemap.xml')!.body).not.toContain('impressum')
  })

  it('names the register entry and the VAT number in the Impressum when the business gives them, escaped', () => {
    const site = fixtureRenderSite(origin)
    const organization = { ...site.organization, register: 'Amtsgericht Hamburg, HRB 12345 <b>', vat_id: 'DE123456789' }
    const rendered = byPath(renderSite({ ...site, organization }, [...englishPages(now), ...germanPages(now)]))
    const $ = cheerio.load(rendered.get('/de/impressum')!.body)
    const headings = $('main h2')
      .map((_i, h) => $(h).text())
      .get()
    expect(headings).toEqual(['Angaben gemäß § 5 DDG', 'Kontakt', 'Registereintrag', 'Umsatzsteuer-Identifikationsnummer gemäß § 27a UStG'])
    expect($('main').text()).toContain('Amtsgericht Hamburg, HRB 12345 <b>')
    expect($('main b').length).toBe(0)
    expect($('main').text()).toContain('DE123456789')
    expect(page('/de/impressum')('main').text()).not.toContain('Registereintrag')
  })

  it('links the business’s social profiles in the footer by the network’s name, and as sameAs in the JSON-LD', () => {
    const site = fixtureRenderSite(origin)
    const social = ['https://www.instagram.com/hansenbakery', 'https://mastodon.social/@hansen', 'https://www.facebook.com/hansen.bakery']
    const withSocial = byPath(renderSite({ ...site, organization: { ...site.organization, social } }, englishPages(now)))
    const $ = cheerio.load(withSocial.get('/about')!.body)
    expect(
      $('footer ul.social a')
        .map((_i, a) => `${$(a).text()} ${$(a).attr('href')} ${$(a).attr('rel')}`)
        .get(),
    ).toEqual([
      'Instagram https://www.instagram.com/hansenbakery me noopener',
      'mastodon.social https://mastodon.social/@hansen me noopener',
      'Facebook https://www.facebook.com/hansen.bakery me noopener',
    ])
    const graph = JSON.parse($('script[type="application/ld+json"]').text())['@graph'] as Array<Record<string, unknown>>
    expect(graph.find((node) => node['@type'] === 'LocalBusiness')!['sameAs']).toEqual(social)
    expect(page('/about')('footer ul.social').length).toBe(0)
  })

  it('adds no Impressum where the owner has a legal page, nor to a site neither in German nor in Germany', () => {
    const own = byPath(
      renderSite(fixtureRenderSite(origin), [
        ...englishPages(now),
        ...germanPages(now),
        { path: '/impressum', locale: 'de', title: 'Impressum', description: 'Unser Impressum.', updatedAt: now, blocks: [] },
      ]),
    )
    expect(cheerio.load(own.get('/de/impressum')!.body)('main').text()).not.toContain('§ 5 DDG')
    const english = fixtureRenderSite(origin)
    const abroad = byPath(
      renderSite(
        {
          ...english,
          locales: ['en'],
          organization: { ...english.organization, address: { street: '1 Quay', locality: 'Cork', country: 'IE' } },
        },
        englishPages(now),
      ),
    )
    expect([...abroad.keys()].filter((path) => /impressum|legal/.test(path))).toEqual([])
  })

  it('gives each page its head: title, description, canonical, Open Graph, Twitter, hreflang, Markdown alternate', () => {
    const $ = page('/about')
    expect($('html').attr('lang')).toBe('en')
    expect($('title').text()).toBe('About Hansen Bakery')
    expect($('meta[name=description]').attr('content')).toMatch(/^How a family bakery/)
    expect($('link[rel=canonical]').attr('href')).toBe(`${origin}/about`)
    expect($('meta[property="og:url"]').attr('content')).toBe(`${origin}/about`)
    expect($('meta[property="og:image"]').attr('content')).toBe('https://images.example.org/oven.jpg')
    expect($('meta[name="twitter:card"]').attr('content')).toBe('summary_large_image')
    const hreflang = $('link[rel=alternate][hreflang]')
      .map((_, el) => `${$(el).attr('hreflang')} ${$(el).attr('href')}`)
      .get()
    expect(hreflang).toEqual([`en ${origin}/about`, `de ${origin}/de/about`, `x-default ${origin}/about`])
    expect($('link[rel=alternate][type="text/markdown"]').attr('href')).toBe('about.md')
    expect($('link[rel=webmention]').attr('href')).toBe('_wps/webmention')
    expect($('meta[name=viewport]').attr('content')).toContain('width=device-width')
    expect($('style').text().length).toBeGreaterThan(100)
  })

  it('marks the page up with landmarks, one h1 and headings that never skip a level', () => {
    for (const path of ['/', '/about', '/contact', '/privacy', '/de/', '/de/about', '/de/privacy']) {
      const $ = page(path)
      expect($('header').length, path).toBe(1)
      expect($('main#main').length, path).toBe(1)
      expect($('footer').length, path).toBe(1)
      expect($('nav[aria-label]').length, path).toBeGreaterThan(0)
      expect($('h1').length, path).toBe(1)
      const levels = $('h1,h2,h3,h4,h5,h6')
        .map((_, el) => Number(el.tagName.slice(1)))
        .get()
      levels.forEach((level, i) => expect(level - (levels[i - 1] ?? 0), `${path}: ${levels.join(',')}`).toBeLessThanOrEqual(1))
      $('img').each((_, el) => expect($(el).attr('alt'), path).toBeTruthy())
    }
  })

  it('links pages relative to themselves so a release works on its domain and under the preview prefix', () => {
    expect(relativePath('/de/about', '/')).toBe('../')
    expect(relativePath('/', '/de/')).toBe('de/')
    expect(relativePath('/de/', '/de/about')).toBe('about')
    expect(relativePath('/about', '/about')).toBe('about')
    const $ = page('/de/about')
    expect($('a.brand').attr('href')).toBe('./')
    expect(page('/')('a.button').first().attr('href')).toBe('contact')
  })

  it('describes the business, the site, the trail and the FAQ in JSON-LD', () => {
    const graph = (path: string) =>
      (JSON.parse(page(path)('script[type="application/ld+json"]').text()) as { '@graph': Array<Record<string, unknown>> })['@graph']
    const home = graph('/')
    expect(home.map((n) => n['@type'])).toEqual(['LocalBusiness', 'WebSite', 'WebPage', 'BreadcrumbList', 'FAQPage'])
    expect(home[0]).toMatchObject({ name: 'Hansen Bakery', url: `${origin}/`, address: { streetAddress: 'Market Street 12' } })
    const faq = home[4] as { mainEntity: Array<{ name: string; acceptedAnswer: { text: string } }> }
    expect(faq.mainEntity[0]!.name).toBe('When are you open?')
    const crumbs = graph('/about')[3] as { itemListElement: Array<{ item: string }> }
    expect(crumbs.itemListElement.map((c) => c.item)).toEqual([`${origin}/`, `${origin}/about`])
    expect(graph('/about').some((n) => n['@type'] === 'FAQPage')).toBe(false)
    const noAddress = renderSite(fixtureRenderSite(origin, { organization: { name: 'Hansen' } }), englishPages(now))
    expect(noAddress[0]!.body).toContain('"@type":"Organization"')
  })

  it('renders a contact form that works without JavaScript and carries the consent and its digest', () => {
    const $ = page('/contact')
    const form = $('form')
    expect(form.attr('method')).toBe('post')
    expect(form.attr('action')).toBe('_wps/forms/contact')
    expect(form.find('input[name=token]').val()).toBe('token-for-tests')
    expect(form.find('input[name=consent_digest]').val()).toBe('a'.repeat(64))
    expect(form.find('input[name=consent_version]').val()).toBe('2026-07-24.1')
    expect(form.find('input[name=consent][type=checkbox]').attr('required')).toBeDefined()
    for (const input of form.find('input:not([type=hidden]), textarea').toArray())
      expect($(`label[for="${$(input).attr('id')}"]`).length).toBe(1)
    expect(form.text()).toContain('I agree that my details are stored.')
    // The consent's '/en/privacy' is where the default locale's privacy page lives: '/privacy'.
    expect(form.find('.consent a').attr('href')).toBe('privacy')
  })

  it('ships no script unless the assistant is on, and then only the widget', () => {
    expect(page('/')('script:not([type="application/ld+json"])').length).toBe(0)
    const withWidget = cheerio.load(
      renderSite(fixtureRenderSite(origin, { widgetOrigin: 'https://app.example' }), englishPages(now))[0]!.body,
    )
    const scripts = withWidget('script:not([type="application/ld+json"])')
    expect(scripts.length).toBe(1)
    expect(scripts.attr('src')).toBe('https://app.example/widget.js')
    // The site's own host, so the widget is this site's assistant on the preview too.
    expect(scripts.attr('data-site')).toBe('bakery.example')
    expect(scripts.attr('defer')).toBeDefined()
  })

  it('writes robots.txt with the AI-crawler choices, a sitemap with alternates and a valid llms.txt', () => {
    const robots = files.get('/robots.txt')!.body
    expect(robots).toContain(`Sitemap: ${origin}/sitemap.xml`)
    expect(robots).toMatch(/User-agent: GPTBot\n(User-agent: .*\n)*Disallow: \//)
    expect(robots).not.toContain('OAI-SearchBot')
    const open = renderSite(
      fixtureRenderSite(origin, { aiCrawlers: { search: false, user_action: true, training: true } }),
      englishPages(now),
    ).find((f) => f.path === '/robots.txt')!.body
    expect(open).toContain('User-agent: OAI-SearchBot')
    expect(open).not.toContain('GPTBot')
    const sitemap = cheerio.load(files.get('/sitemap.xml')!.body, { xml: true })
    expect(
      sitemap('url > loc')
        .map((_, el) => sitemap(el).text())
        .get(),
    ).toEqual([
      `${origin}/`,
      `${origin}/about`,
      `${origin}/contact`,
      `${origin}/privacy`,
      `${origin}/de/`,
      `${origin}/de/about`,
      `${origin}/de/privacy`,
    ])
    expect(sitemap('url').first().find('xhtml\\:link').length).toBe(2)
    const llms = files.get('/llms.txt')!.body
    expect(llmsTxtProblems(llms)).toEqual([])
    expect(llms).toContain(`- [About Hansen Bakery](${origin}/about.md)`)
  })

  it('writes the Markdown alternate with absolute links', () => {
    const md = files.get('/index.md')!.body
    expect(md).toMatch(/^# Slow-baked bread from the old town\n/)
    expect(md).toContain(`[Order for pick-up](<${origin}/contact>)`)
    expect(md).toContain('### When are you open?')
  })

  it('serves a 404 page that is not indexed and links home from any depth', () => {
    const $ = cheerio.load(files.get(NOT_FOUND_PATH)!.body)
    expect($('meta[name=robots]').attr('content')).toBe('noindex')
    expect($('base').attr('href')).toBe(`${origin}/`)
    expect($('h1').text()).toBe('Page not found')
  })

  it('refuses a release where two files would share a path', () => {
    const clash = { ...englishPages(now)[1]!, path: '/about.md' }
    expect(() => renderSite(fixtureRenderSite(origin), [...englishPages(now), clash])).toThrow(
      /two files of the release would live at \/about.md/,
    )
  })

  it('adds the privacy page the consent links to only where no file of the release is, and never as a reason to fail', () => {
    const own = englishPages(now).filter((p) => p.path !== '/privacy')
    const added = byPath(renderSite(fixtureRenderSite(origin), own))
    expect(cheerio.load(added.get('/privacy')!.body)('h1').text()).toBe('Privacy policy')
    expect(added.get('/privacy.md')!.body).toMatch(/^# Privacy policy\n/)
    // An owner's page where the added page's Markdown alternate would be: the owner's page stays, nothing is added.
    const clash = { ...own[1]!, path: '/privacy.md' }
    const kept = byPath(renderSite(fixtureRenderSite(origin), [...own, clash]))
    expect(kept.has('/privacy')).toBe(false)
    expect(cheerio.load(kept.get('/privacy.md')!.body)('h1').text()).toBe(clash.title)
  })
})

describe('hostile content', () => {
  const [html, md] = renderSite(fixtureRenderSite(origin, { name: HOSTILE.script, organization: { name: HOSTILE.attribute } }), [
    hostilePage(now),
  ])
  const $ = cheerio.load(html!.body)

  it('runs no script: the only script element is the JSON-LD, and it parses back to the same text', () => {
    const scripts = $('script')
    expect(scripts.length).toBe(1)
    expect(scripts.attr('type')).toBe('application/ld+json')
    const graph = JSON.parse(scripts.text()) as { '@graph': Array<Record<string, unknown>> }
    expect(graph['@graph'][0]!['name']).toBe(HOSTILE.attribute)
    expect((graph['@graph'][4] as { mainEntity: Array<{ name: string }> }).mainEntity[0]!.name).toBe(`${HOSTILE.script}</script>`)
  })

  it('adds no attribute and no element the content asked for', () => {
    for (const el of $('*').toArray()) {
      const element = el as unknown as { tagName: string; attribs: Record<string, string> }
      for (const name of Object.keys(element.attribs)) expect(name, element.tagName).not.toMatch(/^on/i)
    }
    expect($('img[src=x]').length).toBe(0)
    expect($('title').text()).toBe(`${HOSTILE.script}${HOSTILE.attribute}`)
    expect($('meta[name=description]').attr('content')).toBe(`${HOSTILE.attribute}</title>${HOSTILE.script}`)
    expect($('h1').text()).toBe(HOSTILE.script)
  })

  it('neutralises javascript: and data: URLs in links and images', () => {
    const urls = $('[href]:not(link[rel=icon]),[src]')
      .map((_, el) => $(el).attr('href') ?? $(el).attr('src'))
      .get()
    expect(urls.length).toBeGreaterThan(3)
    for (const url of urls) expect(url.replace(/[\s\u0000-\u001f]/g, ''), url).not.toMatch(/^(javascript|data|vbscript):/i)
    // The words of a refused link stay readable.
    expect($('.hero span.button').text()).toBe(HOSTILE.script)
    expect($('section.text').text()).toContain('[click](javascript:alert(3))')
  })

  it('keeps the Markdown alternate free of refused links', () => {
    expect(md!.body).not.toMatch(/\]\(<?\s*(javascript|data):/i)
  })
})
