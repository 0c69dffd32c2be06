/**
 * robots.txt as RFC 9309 reads it: groups of user-agent lines with allow/disallow rules; a crawler
 * obeys the group naming its product token (case-insensitive), else the `*` group; the longest
 * matching rule wins and allow wins a tie; `*` matches any run of characters and `$` ends a rule.
 */

import { AI_CRAWLERS, type CrawlerPurpose } from '../sites/ai-crawlers.ts'

export interface RobotsGroup {
  agents: string[]
  rules: Array<{ allow: boolean; path: string }>
}

export interface Robots {
  groups: RobotsGroup[]
  sitemaps: string[]
}

export function parseRobots(text: string): Robots {
  const groups: RobotsGroup[] = []
  const sitemaps: string[] = []
  let current: RobotsGroup | undefined
  let lastWasAgent = false
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim()
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] }
        groups.push(current)
      }
      current.agents.push(value.toLowerCase())
      lastWasAgent = true
    } else if (key === 'allow' || key === 'disallow') {
      lastWasAgent = false
      // An empty disallow allows everything; it adds no rule.
      if (current && value !== '') current.rules.push({ allow: key === 'allow', path: value })
    } else if (key === 'sitemap') {
      if (value) sitemaps.push(value)
    } else {
      lastWasAgent = false
    }
  }
  return { groups, sitemaps }
}

/** The rules that apply to `agent`: every group naming its token merged, else every `*` group. */
function rulesFor(robots: Robots, agent: string): RobotsGroup['rules'] | undefined {
  const token = agent.toLowerCase()
  const named = robots.groups.filter((g) => g.agents.includes(token))
  if (named.length > 0) return named.flatMap((g) => g.rules)
  const star = robots.groups.filter((g) => g.agents.includes('*'))
  return star.length > 0 ? star.flatMap((g) => g.rules) : undefined
}

/** Whether the agent has a group of its own (not only the `*` group). */
export function namesAgent(robots: Robots, agent: string): boolean {
  return robots.groups.some((g) => g.agents.includes(agent.toLowerCase()))
}

function ruleMatches(rule: string, path: string): boolean {
  const anchored = rule.endsWith('$')
  const body = anchored ? rule.slice(0, -1) : rule
  const pattern = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${pattern}${anchored ? '$' : ''}`).test(path)
}

export function isAllowed(robots: Robots, agent: string, path: string): boolean {
  const rules = rulesFor(robots, agent)
  if (!rules) return true
  let best: { allow: boolean; length: number } | undefined
  for (const rule of rules) {
    if (!ruleMatches(rule.path, path)) continue
    const length = rule.path.length
    if (!best || length > best.length || (length === best.length && rule.allow)) best = { allow: rule.allow, length }
  }
  return best ? best.allow : true
}

export type { CrawlerPurpose }

export interface CrawlerAccess {
  agent: string
  operator: string
  purpose: CrawlerPurpose
  allowed: boolean
  /** True when robots.txt has a group for this crawler by name. */
  named: boolean
}

export function aiCrawlerAccess(robots: Robots | undefined): CrawlerAccess[] {
  return AI_CRAWLERS.map((c) => ({
    ...c,
    allowed: robots ? isAllowed(robots, c.agent, '/') : true,
    named: robots ? namesAgent(robots, c.agent) : false,
  }))
}
