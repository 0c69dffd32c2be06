import { aiCrawlerAccess, type CrawlerPurpose } from './robots.ts'
import { clip, type Problem, type Rule } from './rule.ts'
import type { SiteData } from './crawl.ts'

const MIN_TEXT_WORDS = 80
const MIN_NUMERIC_SENTENCES = 3

/** The AI crawlers of one purpose that robots.txt blocks, as a list of their names ('' for none). */
function blockedAgents(site: SiteData, purpose: CrawlerPurpose): string {
  return aiCrawlerAccess(site.robots.parsed)
    .filter((c) => c.purpose === purpose && !c.allowed)
    .map((c) => c.agent)
    .join(', ')
}

/**
 * llms.txt per https://llmstxt.org: an H1 with the site name, then a blockquote summary, then
 * optional prose, then H2 sections of markdown link lists `- [name](url): notes`.
 */
export function llmsTxtProblems(text: string): Problem[] {
  const lines = text.split(/\r?\n/)
  const firstContent = lines.find((l) => l.trim() !== '')
  const problems: Problem[] = []
  if (!firstContent || !/^#\s+\S/.test(firstContent))
    problems.push({ severity: 'warning', message: 'llms.txt does not start with an H1 title', evidence: clip(firstContent, 80) })
  if (lines.filter((l) => /^#\s/.test(l)).length > 1) problems.push({ severity: 'notice', message: 'llms.txt has more than one H1' })
  if (!lines.some((l) => /^>\s*\S/.test(l))) problems.push({ severity: 'notice', message: 'llms.txt has no blockquote summary' })
  const sections = lines.filter((l) => /^##\s+\S/.test(l)).length
  const links = lines.filter((l) => /^\s*[-*]\s*\[[^\]]+\]\([^)\s]+\)/.test(l)).length
  if (sections === 0 || links === 0)
    problems.push({
      severity: 'warning',
      message: 'llms.txt has no H2 sections with link lists',
      evidence: `${sections} sections, ${links} links`,
    })
  return problems
}

export const geoRules: Rule[] = [
  {
    id: 'geo.ai_search_crawlers',
    axis: 'geo',
    weight: 8,
    effort: 'low',
    fix: 'Allow AI search crawlers (OAI-SearchBot, Claude-SearchBot, PerplexityBot) in robots.txt',
    site: (site) => {
      const agents = blockedAgents(site, 'search')
      return agents
        ? {
            problems: [
              {
                severity: 'critical',
                message: `robots.txt blocks AI search crawlers, so AI answers cannot cite the site: ${agents}`,
                evidence: agents,
              },
            ],
            credit: 0,
          }
        : { problems: [] }
    },
  },
  {
    id: 'geo.ai_user_fetchers',
    axis: 'geo',
    weight: 5,
    effort: 'low',
    fix: 'Allow user-action fetchers (ChatGPT-User, Claude-User) in robots.txt',
    site: (site) => {
      const agents = blockedAgents(site, 'user_action')
      return agents
        ? {
            problems: [{ severity: 'warning', message: `robots.txt blocks fetchers acting for a user: ${agents}`, evidence: agents }],
            credit: 0,
          }
        : { problems: [] }
    },
  },
  {
    id: 'geo.ai_training_crawlers',
    axis: 'geo',
    // Blocking training is a legitimate choice: reported, never scored.
    weight: 0,
    effort: 'low',
    fix: 'Decide whether AI training crawlers may use the content',
    site: (site) => {
      const agents = blockedAgents(site, 'training')
      return agents
        ? {
            problems: [
              {
                severity: 'info',
                message: `robots.txt opts out of AI training by ${agents}; this does not affect AI search`,
                evidence: agents,
              },
            ],
          }
        : { problems: [] }
    },
  },
  {
    id: 'geo.llms_txt',
    axis: 'geo',
    weight: 5,
    effort: 'low',
    fix: 'Publish /llms.txt: an H1, a one-line summary and lists of key pages',
    site: (site) => {
      if (site.llms.text === undefined)
        return {
          problems: [
            {
              severity: 'notice',
              message: 'There is no /llms.txt',
              evidence: site.llms.status === null ? undefined : `HTTP ${site.llms.status}`,
            },
          ],
        }
      const problems = llmsTxtProblems(site.llms.text)
      return { problems, credit: problems.some((p) => p.severity === 'warning') ? 0.4 : problems.length ? 0.8 : 1 }
    },
  },
  {
    id: 'geo.text_without_js',
    axis: 'geo',
    weight: 8,
    effort: 'high',
    fix: 'Render the main text on the server; AI crawlers do not run JavaScript',
    page: (page) =>
      page.word_count >= MIN_TEXT_WORDS || page.script_count === 0
        ? []
        : [
            {
              severity: 'critical',
              message: `Without JavaScript the page shows only ${page.word_count} words`,
              evidence: `${page.word_count} words, ${page.script_count} scripts`,
            },
          ],
  },
  {
    id: 'geo.markdown_alternates',
    axis: 'geo',
    weight: 2,
    effort: 'medium',
    fix: 'Offer markdown versions of key pages (link rel=alternate type=text/markdown)',
    site: (site) => {
      const linked = site.pages.some((p) => p.markdown_alternates.length > 0) || /\]\([^)]+\.md\)/.test(site.llms.text ?? '')
      return linked ? { problems: [] } : { problems: [{ severity: 'notice', message: 'No markdown alternate of any page is offered' }] }
    },
  },
  {
    id: 'geo.snippet_directives',
    axis: 'geo',
    weight: 6,
    effort: 'low',
    fix: 'Remove nosnippet / noai directives from pages that should be quoted',
    page: (page) => {
      const directives = `${page.robots_meta}, ${page.x_robots_tag}`
      const found = directives.match(/\b(noai|noimageai|nosnippet|max-snippet\s*:\s*0)\b/gi)
      return found
        ? [
            {
              severity: 'warning',
              message: 'Robots directives keep AI answers from quoting the page',
              evidence: [...new Set(found.map((f) => f.toLowerCase()))].join(', '),
            },
          ]
        : []
    },
  },
  {
    id: 'geo.facts_citations',
    axis: 'geo',
    weight: 4,
    effort: 'medium',
    fix: 'State concrete facts with numbers and cite outside sources',
    site: (site) => {
      const numeric = site.pages.reduce((n, p) => n + p.numeric_sentences, 0)
      const outbound = site.pages.reduce((n, p) => n + p.external_links.length, 0)
      const problems: Problem[] = []
      if (numeric < MIN_NUMERIC_SENTENCES)
        problems.push({
          severity: 'notice',
          message: `Only ${numeric} sentences state facts with numbers`,
          evidence: `${numeric} sentences`,
        })
      if (outbound === 0) problems.push({ severity: 'notice', message: 'The text cites no outside sources (no outbound links)' })
      return { problems, credit: 1 - problems.length / 2 }
    },
  },
]
