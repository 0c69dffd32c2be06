import type { Config } from '../config.ts'
import type { AuditRow } from '../domain/audit-log.ts'
import { blockView, type Block } from '../domain/blocks.ts'
import { buildView, type Build } from '../domain/builds.ts'
import { domainView, type Domain } from '../domain/domains.ts'
import type { Lead } from '../domain/leads.ts'
import type { Page } from '../domain/pages.ts'
import type { SiteRecord } from '../domain/sites.ts'
import { leadView, pageView, siteView } from '../domain/views.ts'
import { endpointView, type EndpointRow } from '../domain/webhooks.ts'
import { etagOf } from '../infra/etag.ts'

/**
 * The objects GraphQL answers: the REST representation (src/domain/views.ts) with its field names
 * in camelCase, and the ETag REST gives the same item (made from that representation when asked).
 */

/** The REST representation an item's ETag is made of; not a field of the schema. */
const REST = Symbol('rest')

interface Tagged {
  [REST]: unknown
}

export function etagOfNode(node: Tagged): string {
  return etagOf(node[REST])
}

export function siteNode(site: SiteRecord, config: Config) {
  const view = siteView(site, config)
  return {
    [REST]: view,
    id: view.id,
    name: view.name,
    domain: view.domain,
    subdomain: view.subdomain,
    status: view.status,
    defaultLocale: view.default_locale,
    locales: view.locales,
    assistant: { enabled: view.assistant.enabled, persona: view.assistant.persona, bookingUrl: view.assistant.booking_url, lead: view.assistant.lead, handoff: view.assistant.handoff },
    previewUrl: view.preview_url,
    url: view.url,
    createdAt: view.created_at,
    updatedAt: view.updated_at,
    publishedAt: view.published_at,
  }
}
export type SiteNode = ReturnType<typeof siteNode>

export function pageNode(page: Page) {
  const view = pageView(page)
  return {
    [REST]: view,
    id: view.id,
    siteId: view.site_id,
    path: view.path,
    locale: view.locale,
    title: view.title,
    description: view.description,
    createdAt: view.created_at,
    updatedAt: view.updated_at,
  }
}
export type PageNode = ReturnType<typeof pageNode>

export function blockNode(block: Block) {
  const view = blockView(block)
  return { [REST]: view, id: view.id, pageId: view.page_id, type: view.type, position: view.position, content: view.content }
}

export function domainNode(domain: Domain) {
  const view = domainView(domain)
  return {
    [REST]: view,
    id: view.id,
    siteId: view.site_id,
    hostname: view.hostname,
    status: view.status,
    primary: view.primary,
    verification: view.verification,
    verifiedAt: view.verified_at,
  }
}

export function buildNode(build: Build) {
  const view = buildView(build)
  return { id: view.id, siteId: view.site_id, status: view.status, error: view.error, pages: view.pages, startedAt: view.started_at, finishedAt: view.finished_at }
}

export function leadNode(lead: Lead) {
  const view = leadView(lead)
  return {
    [REST]: view,
    id: view.id,
    siteId: view.site_id,
    source: view.source,
    email: view.email,
    name: view.name,
    note: view.note,
    consent: { version: view.consent.version, locale: view.consent.locale, digest: view.consent.digest, givenAt: view.consent.given_at },
    createdAt: view.created_at,
  }
}

export function endpointNode(row: EndpointRow) {
  const view = endpointView(row)
  return { id: view.id, url: view.url, description: view.description, eventTypes: view.event_types, enabled: view.enabled, disabledReason: view.disabled_reason, createdAt: view.created_at }
}

export function auditNode(row: AuditRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    accountId: row.account_id,
    tokenId: row.token_id,
    clientId: row.client_id,
    operation: row.operation,
    method: row.method,
    path: row.path,
    status: row.status,
    requestId: row.request_id,
    ip: row.ip,
  }
}
