import type { Site } from '../domain/sites/sites.ts'
import { assistantAnswers, findSiteByHostname, findSiteById, PLATFORM_SITE_ID } from '../domain/sites/sites.ts'
import { resolveAssistant, type ResolvedAssistant, type SiteSettings } from '../domain/sites/settings.ts'
import { isLocale } from '../domain/locales.ts'
import type { SiteStatus } from '../infra/tables.ts'
import type { Locale } from '../domain/locales.ts'
import type { Db } from '../infra/db.ts'
import { agentError } from './errors.ts'
import type { KnowledgeBase } from './knowledge.ts'
import type { Responder } from './responder/types.ts'

/** What the route plugins of /api/agent share. */
export interface AgentDeps {
  kb: KnowledgeBase
  responder: Responder
}

/** A page address as the widget sends it: absolute on a customer's site, or a path on the platform's own. */
export function parsePageUrl(url: string | undefined, baseUrl: string): URL | undefined {
  if (url === undefined || url === '') return undefined
  let parsed: URL
  try {
    parsed = new URL(url, baseUrl)
  } catch {
    throw agentError('invalidRequest')
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw agentError('invalidRequest')
  return parsed
}

/** The site that owns the assistant on a page: by hostname (an own domain or a platform subdomain), the platform's own site when no page is named. */
export async function siteForPage(db: Db, page: URL | undefined, sitesDomain: string): Promise<Site | undefined> {
  return page ? findSiteByHostname(db, page.hostname, sitesDomain) : findSiteById(db, PLATFORM_SITE_ID)
}

/** The assistant as a site offers it, or undefined when it is off (unknown, offline or disabled: 404 feature disabled). */
export function liveAssistant(site: { status: SiteStatus; settings: SiteSettings } | undefined): ResolvedAssistant | undefined {
  if (!site || !assistantAnswers(site.status)) return undefined
  const assistant = resolveAssistant(site.settings)
  return assistant.enabled ? assistant : undefined
}

const LOCALE_PREFIX = /^\/(de|en|fr)(?:\/|$)/

/** The locale of a new session: the one asked for, else the page's /de/ /en/ /fr/ prefix, else the site's default. */
export function resolveLocale(requested: Locale | undefined, page: URL | undefined, siteDefault: Locale): Locale {
  if (requested) return requested
  const prefix = page ? LOCALE_PREFIX.exec(page.pathname)?.[1] : undefined
  if (isLocale(prefix)) return prefix
  return siteDefault
}
