import type { Config } from '../config.ts'
import type { AuditRow } from '../domain/accounts/audit-log.ts'
import { blockView, type Block } from '../domain/sites/blocks.ts'
import { buildView, type Build } from '../domain/sites/builds.ts'
import { domainView, type Domain } from '../domain/sites/domains.ts'
import type { Lead } from '../domain/leads/leads.ts'
import type { Page } from '../domain/sites/pages.ts'
import type { SiteRecord } from '../domain/sites/sites.ts'
import { leadView, pageView, siteView } from '../domain/sites/views.ts'
import { endpointView, type EndpointRow } from '../domain/webhooks/endpoints.ts'
import { etagOf } from '../infra/etag.ts'

/**
 * The objects GraphQL answers: the REST representation (src/domain/sites/views.ts) with its field names
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

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S
type CamelCased<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] }

/** A representation's own fields under their camelCase names; the objects inside keep theirs. */
function camelCased<T extends object>(view: T): CamelCased<T> {
  return Object.fromEntries(Object.entries(view).map(([key, value]) => [key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase()), value])) as CamelCased<T>
}

export function siteNode(site: SiteRecord, config: Config) {
  const view = siteView(site, config)
  return { [REST]: view, ...camelCased(view), assistant: camelCased(view.assistant) }
}
export type SiteNode = ReturnType<typeof siteNode>

export function pageNode(page: Page) {
  const view = pageView(page)
  return { [REST]: view, ...camelCased(view) }
}
export type PageNode = ReturnType<typeof pageNode>

export function blockNode(block: Block) {
  const view = blockView(block)
  return { [REST]: view, ...camelCased(view) }
}

export function domainNode(domain: Domain) {
  const view = domainView(domain)
  return { [REST]: view, ...camelCased(view) }
}

export function buildNode(build: Build) {
  return camelCased(buildView(build))
}

export function leadNode(lead: Lead) {
  const view = leadView(lead)
  return { [REST]: view, ...camelCased(view), consent: camelCased(view.consent) }
}

export function endpointNode(row: EndpointRow) {
  return camelCased(endpointView(row))
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
