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

/** Each field name's camelCase form, made once: the names are the representations' few fields. */
const camelNames = new Map<string, string>()

function camelName(key: string): string {
  let name = camelNames.get(key)
  if (name === undefined) {
    name = key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase())
    if (camelNames.size < 1000) camelNames.set(key, name)
  }
  return name
}

/** A representation's own fields under their camelCase names; the objects inside keep theirs. */
function camelCased<T extends object>(view: T): CamelCased<T> {
  const camel: Record<string, unknown> = {}
  for (const key of Object.keys(view)) camel[camelName(key)] = view[key as keyof T]
  return camel as CamelCased<T>
}

/** The node of a representation: its fields in camelCase, and the representation its ETag is made of. */
function tagged<T extends object>(view: T): { [REST]: T } & CamelCased<T> {
  const node = camelCased(view) as { [REST]: T } & CamelCased<T>
  node[REST] = view
  return node
}

export function siteNode(site: SiteRecord, config: Config) {
  const view = siteView(site, config)
  // Built in place rather than spread: a list of 50 sites made each node's fields three times.
  const node = camelCased(view) as unknown as Record<string | symbol, unknown>
  node['assistant'] = camelCased(view.assistant)
  node[REST] = view
  return node as unknown as { [REST]: typeof view } & Omit<CamelCased<typeof view>, 'assistant'> & { assistant: CamelCased<typeof view.assistant> }
}
export type SiteNode = ReturnType<typeof siteNode>

export function pageNode(page: Page) {
  return tagged(pageView(page))
}
export type PageNode = ReturnType<typeof pageNode>

export function blockNode(block: Block) {
  return tagged(blockView(block))
}

export function domainNode(domain: Domain) {
  return tagged(domainView(domain))
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
