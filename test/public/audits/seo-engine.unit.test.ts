import { afterAll, describe, expect, it } from 'vitest'
import { createSafeFetcher } from '../../../src/infra/fetcher.ts'
import { parseSitemap } from '../../../src/domain/seo-audit/crawl.ts'
import { runAudit, type AuditReport } from '../../../src/domain/seo-audit/engine.ts'
import { extractPage } from '../../../src/domain/seo-audit/page.ts'
import { isAllowed, parseRobots } from '../../../src/domain/seo-audit/robots.ts'
import { aeoRules } from '../../../src/domain/seo-audit/rules-aeo.ts'
import { llmsTxtProblems } from '../../../src/domain/seo-audit/rules-geo.ts'
import { closedPort, serveFixture, testCertificate, type ServeOptions } from '../../fixtures/sites/serve.ts'

// Fixture sites are served over real HTTPS on loopback with a certificate made for this run; the
// fetcher trusts it as an extra CA, exactly as a deployment with a private CA would.
const cert = testCertificate()
const fetcher = createSafeFetcher({ allowPrivateNetworks: true, ca: [cert.cert], timeoutMs: 5000 })
afterAll(() => fetcher.close())

async function audit(name: string, premium: boolean, options: ServeOptions = { tls: cert }) {
  const site = await serveFixture(name, options)
  try {
    return { report: await runAudit(fetcher, site.domain, premium), site }
  } finally {
    await site.close()
  }
}

const rules = (report: AuditReport) => new Set(report.findings.map((f) => f.rule))

describe('the clean fixture site', () => {
  it.each([false, true])('is not flagged (premium=%s)', async (premium) => {
    const { report, site } = await audit('clean', premium)
    expect(report.findings).toEqual([])
    expect(report.quick_wins).toEqual([])
    expect(report.score).toBe(100)
    expect(report.axes.seo.score).toBe(100)
    expect(report.axes.aeo.score).toBe(100)
    expect(report.axes.geo.score).toBe(100)
    expect(report.reachable).toBe(true)
    expect(report.url).toBe(`${site.origin}/`)
    expect(report.pages_checked).toBe(premium ? 3 : 1)
  })
})

describe('fixture sites with known defects', () => {
  it.each([
    [
      'seo-defects',
      false,
      [
        'seo.title',
        'seo.meta_description',
        'seo.h1',
        'seo.heading_order',
        'seo.canonical',
        'seo.robots_directives',
        'seo.robots_txt',
        'seo.sitemap',
        'seo.lang',
        'seo.hreflang',
        'seo.viewport',
        'seo.image_alt',
        'seo.open_graph',
        'seo.twitter_card',
        'seo.thin_content',
      ],
    ],
    [
      'aeo-defects',
      false,
      [
        'aeo.structured_data',
        'aeo.entity_markup',
        'aeo.faq_markup',
        'aeo.direct_answers',
        'aeo.concise_paragraphs',
        'aeo.author_date',
        'aeo.contact_about',
      ],
    ],
    [
      'geo-defects',
      false,
      [
        'geo.ai_search_crawlers',
        'geo.ai_user_fetchers',
        'geo.ai_training_crawlers',
        'geo.llms_txt',
        'geo.text_without_js',
        'geo.markdown_alternates',
        'geo.snippet_directives',
        'geo.facts_citations',
        'aeo.question_headings',
      ],
    ],
    [
      'premium-defects',
      true,
      ['seo.redirects', 'seo.canonical', 'seo.sitemap', 'seo.broken_links', 'seo.duplicate_titles', 'seo.duplicate_descriptions'],
    ],
  ])('%s: every planted defect is found', async (name, premium, expected) => {
    const { report } = await audit(name, premium)
    const found = rules(report)
    for (const rule of expected) expect(found, `${name} should be flagged by ${rule}`).toContain(rule)
    expect(report.score).toBeLessThan(100)
    for (const finding of report.findings) {
      expect(finding.rule.startsWith(`${finding.axis}.`)).toBe(true)
      expect(finding.message.length).toBeGreaterThan(5)
    }
  })

  it('names the evidence and the page of each finding', async () => {
    const { report, site } = await audit('premium-defects', true)
    const broken = report.findings.filter((f) => f.rule === 'seo.broken_links')
    expect(broken.map((f) => f.evidence).sort()).toEqual([`${site.origin}/broken-cake`, `${site.origin}/missing-page`])
    expect(broken.find((f) => f.evidence?.endsWith('/broken-cake'))?.page).toBe(`${site.origin}/cakes`)
    expect(report.findings.find((f) => f.rule === 'seo.redirects')).toMatchObject({ page: `${site.origin}/offers`, evidence: '2 hops' })
    expect(report.findings.find((f) => f.rule === 'seo.canonical')?.evidence).toContain(`${site.origin}/products`)
  })

  it('finds the page-level defects (seo-defects) with the values that prove them', async () => {
    const { report } = await audit('seo-defects', false)
    const byRule = (rule: string) => report.findings.filter((f) => f.rule === rule)
    expect(byRule('seo.robots_directives')[0]).toMatchObject({ severity: 'critical', evidence: 'noindex, follow' })
    expect(byRule('seo.h1')[0]?.message).toBe('The page has 2 h1 headings')
    expect(byRule('seo.heading_order')[0]?.message).toBe('Heading levels skip from h2 to h4')
    expect(byRule('seo.hreflang').map((f) => f.evidence)).toContain('english')
    expect(byRule('seo.canonical')[0]?.evidence).toBe('/home')
    // Findings come most severe first; quick wins are at most five, best value first.
    const order = { critical: 0, warning: 1, notice: 2, info: 3 }
    const severities = report.findings.map((f) => order[f.severity])
    expect(severities).toEqual([...severities].sort((a, b) => a - b))
    expect(report.quick_wins.length).toBe(5)
    expect(report.quick_wins.every((w) => w.gain > 0)).toBe(true)
  })

  it('reports blocked training crawlers as information only, without cost to the score', async () => {
    const robots =
      'User-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: Google-Extended\nDisallow: /\n\nUser-agent: *\nAllow: /\n\nSitemap: {{origin}}/sitemap.xml\n'
    const { report } = await audit('clean', false, { tls: cert, overrides: { '/robots.txt': robots } })
    expect(report.findings).toHaveLength(1)
    expect(report.findings[0]).toMatchObject({
      rule: 'geo.ai_training_crawlers',
      severity: 'info',
      evidence: 'GPTBot, ClaudeBot, Google-Extended',
    })
    expect(report.score).toBe(100)
    const access = Object.fromEntries(report.ai_crawlers.map((c) => [c.agent, c]))
    expect(access['GPTBot']).toMatchObject({ purpose: 'training', allowed: false })
    expect(access['OAI-SearchBot']).toMatchObject({ purpose: 'search', allowed: true })
    expect(access['Claude-User']).toMatchObject({ purpose: 'user_action', allowed: true })
  })

  it('falls back to http when https cannot be reached, and flags the missing https', async () => {
    const { report, site } = await audit('clean', false, {})
    expect(report.reachable).toBe(true)
    expect(report.url).toBe(`${site.origin}/`)
    expect(site.origin.startsWith('http://')).toBe(true)
    expect(report.findings.map((f) => [f.rule, f.severity])).toEqual([['seo.https', 'critical']])
  })

  it('reports a site that cannot be reached as such', async () => {
    const report = await runAudit(fetcher, `localhost:${await closedPort()}`, false)
    expect(report.reachable).toBe(false)
    expect(report.score).toBe(0)
    expect(report.findings).toHaveLength(1)
    expect(report.findings[0]).toMatchObject({ rule: 'site.unreachable', severity: 'critical' })
    expect(report.findings[0]?.message).toMatch(/could not be reached over https or http/)
  })
})

describe('premium crawl', () => {
  it('stops at 50 pages and keeps at most 8 requests in flight', async () => {
    const links = Array.from({ length: 80 }, (_, i) => `<a href="/p${i}">Page ${i}</a>`).join(' ')
    const overrides: Record<string, string> = {
      '/': `<!doctype html><html lang="en"><title>Many pages here</title><body><h1>Many</h1>${links}</body></html>`,
    }
    for (let i = 0; i < 80; i++)
      overrides[`/p${i}`] =
        `<!doctype html><html lang="en"><title>Page number ${i}</title><body><h1>Page ${i}</h1><a href="/">Home</a></body></html>`
    const site = await serveFixture('clean', { tls: cert, overrides, delayMs: 15 })
    try {
      const report = await runAudit(fetcher, site.domain, true)
      expect(report.pages_checked).toBe(50)
      const pageHits = site.hits.filter((h) => /^\/p\d+$/.test(h))
      expect(pageHits.length).toBe(49)
      expect(new Set(pageHits).size).toBe(49)
      expect(site.peakConcurrency()).toBeLessThanOrEqual(8)
      expect(site.peakConcurrency()).toBeGreaterThan(1)
    } finally {
      await site.close()
    }
  })

  it('obeys robots.txt for its own crawler token', async () => {
    const robots = 'User-agent: WebPresenceBot\nDisallow: /contact\n\nUser-agent: *\nAllow: /\n\nSitemap: {{origin}}/sitemap.xml\n'
    const site = await serveFixture('clean', { tls: cert, overrides: { '/robots.txt': robots } })
    try {
      const report = await runAudit(fetcher, site.domain, true)
      expect(report.pages_checked).toBe(2)
      expect(site.hits).not.toContain('/contact')
    } finally {
      await site.close()
    }
  })
})

describe('robots.txt (RFC 9309)', () => {
  const robots = parseRobots(
    [
      'User-agent: *',
      'Disallow: /private',
      'Allow: /private/open$',
      'Disallow: /*.pdf$',
      '',
      'User-agent: GPTBot',
      'User-agent: CCBot',
      'Disallow: /',
      '',
      'User-agent: gptbot',
      'Allow: /blog/',
      'Sitemap: https://example.com/sitemap.xml # main',
    ].join('\n'),
  )

  it('applies the longest match, allow winning ties, with * and $', () => {
    expect(isAllowed(robots, 'Googlebot', '/')).toBe(true)
    expect(isAllowed(robots, 'Googlebot', '/private/x')).toBe(false)
    expect(isAllowed(robots, 'Googlebot', '/private/open')).toBe(true)
    expect(isAllowed(robots, 'Googlebot', '/private/open/more')).toBe(false)
    expect(isAllowed(robots, 'Googlebot', '/files/a.pdf')).toBe(false)
    expect(isAllowed(robots, 'Googlebot', '/files/a.pdf?x')).toBe(true)
  })

  it('merges the groups that name an agent, case-insensitively', () => {
    expect(isAllowed(robots, 'GPTBot', '/')).toBe(false)
    expect(isAllowed(robots, 'GPTBot', '/blog/post')).toBe(true)
    expect(isAllowed(robots, 'CCBot', '/blog/post')).toBe(false)
    expect(robots.sitemaps).toEqual(['https://example.com/sitemap.xml'])
  })

  it('allows everything when there is no group for the agent', () => {
    expect(isAllowed(parseRobots('User-agent: Foo\nDisallow: /'), 'Bar', '/')).toBe(true)
    expect(isAllowed(parseRobots('User-agent: *\nDisallow:'), 'Bar', '/')).toBe(true)
  })
})

describe('llms.txt and sitemaps', () => {
  it('accepts a well-formed llms.txt and names what a bad one lacks', () => {
    expect(llmsTxtProblems('# Site\n\n> Summary.\n\n## Docs\n\n- [Guide](https://example.com/guide.md): how to\n')).toEqual([])
    const problems = llmsTxtProblems('Site\n\nSome text\n').map((p) => p.message)
    expect(problems).toContain('llms.txt does not start with an H1 title')
    expect(problems).toContain('llms.txt has no blockquote summary')
    expect(problems).toContain('llms.txt has no H2 sections with link lists')
  })

  it('reads urlset and sitemapindex roots and refuses other XML', () => {
    const urlset = parseSitemap(
      'https://e.com/s.xml',
      200,
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/a</loc></url></urlset>',
    )
    expect(urlset).toMatchObject({ kind: 'urlset', urls: ['https://e.com/a'], error: undefined })
    const index = parseSitemap(
      'https://e.com/s.xml',
      200,
      '<sitemapindex><sitemap><loc>https://e.com/s1.xml</loc></sitemap></sitemapindex>',
    )
    expect(index).toMatchObject({ kind: 'sitemapindex', urls: ['https://e.com/s1.xml'] })
    expect(parseSitemap('https://e.com/s.xml', 200, '<html><body>hi</body></html>').error).toMatch(/not a sitemap/)
    expect(parseSitemap('https://e.com/s.xml', 200, '<urlset></urlset>').error).toBe('lists no URLs')
    expect(parseSitemap('https://e.com/s.xml', 404, '').error).toBe('answered 404')
  })
})

describe('schema.org checks', () => {
  const ld = (items: unknown[]) =>
    `<!doctype html><html lang="en"><head><title>t</title>${items.map((i) => `<script type="application/ld+json">${JSON.stringify(i)}</script>`).join('')}</head><body><h1>x</h1></body></html>`
  const check = (html: string) => {
    const page = extractPage('https://example.com/', 200, { 'content-type': 'text/html' }, html, 0)
    const rule = aeoRules.find((r) => r.id === 'aeo.structured_data')!
    return (rule.page!(page, {} as never) ?? []).map((p) => p.message)
  }

  it('names the missing properties of each type it knows', () => {
    const messages = check(
      ld([
        { '@context': 'https://schema.org', '@type': 'Bakery', name: 'Sample Bakery' },
        { '@context': 'https://schema.org', '@type': 'BreadcrumbList' },
        { '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'News' },
        { '@context': 'https://schema.org', '@type': 'FAQPage', mainEntity: [{ '@type': 'Question', name: 'Why?' }] },
        { '@context': 'https://schema.org', '@type': 'WebSite', name: 'Sample', url: 'https://example.com/' },
      ]),
    )
    expect(messages).toEqual([
      'The Bakery markup lacks address',
      'The BreadcrumbList markup lacks itemListElement',
      'The BlogPosting markup lacks author, datePublished',
      '1 FAQPage questions lack a name or an acceptedAnswer text',
    ])
  })

  it('accepts complete markup, also inside @graph', () => {
    expect(
      check(
        ld([
          {
            '@context': 'https://schema.org',
            '@graph': [
              { '@type': 'LocalBusiness', name: 'Sample', address: { '@type': 'PostalAddress', addressLocality: 'Freiburg' } },
              { '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home' }] },
              { '@type': 'Article', headline: 'News', author: { '@type': 'Person', name: 'A' }, datePublished: '2026-11-01' },
            ],
          },
        ]),
      ),
    ).toEqual([])
  })
})
