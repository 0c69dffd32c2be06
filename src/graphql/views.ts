import type { Config } from '../config.ts'
import type { AuditRow } from '../domain/accounts/audit-log.ts'
import { blockView, type Block } from '../domain/sites/blocks.ts'
import { buildView, type Build } from '../domain/sites/builds.ts'
import { domainView, type Domain } from '../domain/sites/domains.ts'
import type { Lead } from '../domain/leads/leads.ts'
import type { Page } from '../domain/sites/pages.ts'
import { redirectView, type SiteRedirect } from '../domain/sites/redirects.ts'
import { revisionView, type PageRevision } from '../domain/sites/revisions.ts'
import type { SiteRecord } from '../domain/sites/sites.ts'
import { leadView, pageView, siteView } from '../domain/sites/views.ts'
import { endpointView, type EndpointRow } from '../domain/webhooks/endpoints.ts'
import { etagOf } from '../infra/etag.ts'
import type { ThemeCatalog } from '../domain/sites/themes.ts'

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

/** Views of one shape seen by a renamer before it stops compiling and renames field by field. */
const MAX_SHAPES = 8

/**
 * `camelCased` for the views of one kind, which share their fields: the first view's fields are
 * compiled into one object literal, so each next view is copied in one step instead of field by
 * field under computed names (a fifth of a 50-site list's GraphQL work). A view whose fields
 * differ is renamed anew; a kind whose views keep changing shape is renamed field by field.
 */
function renamer<T extends object>(): (view: T) => CamelCased<T> {
  let keys: string[] = []
  let copy: ((view: T) => CamelCased<T>) | undefined
  let shapes = 0
  return (view) => {
    const own = Object.keys(view)
    if (copy && sameKeys(own, keys)) return copy(view)
    if (shapes >= MAX_SHAPES || own.includes('__proto__')) return camelCased(view)
    shapes++
    keys = own
    const fields = own.map((key) => `${JSON.stringify(camelName(key))}: view[${JSON.stringify(key)}]`).join(', ')
    copy = new Function('view', `return { ${fields} }`) as (view: T) => CamelCased<T>
    return copy(view)
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The node of a representation: its fields in camelCase, and the representation its ETag is made of. */
function tagged<T extends object>(view: T, rename: (view: T) => CamelCased<T> = camelCased): { [REST]: T } & CamelCased<T> {
  const node = rename(view) as { [REST]: T } & CamelCased<T>
  node[REST] = view
  return node
}

const siteFields = renamer<ReturnType<typeof siteView>>()
const assistantFields = renamer<ReturnType<typeof siteView>['assistant']>()
const themeFields = renamer<ReturnType<typeof siteView>['theme']>()
const pageFields = renamer<ReturnType<typeof pageView>>()
const blockFields = renamer<ReturnType<typeof blockView>>()

export function siteNode(site: SiteRecord, config: Config) {
  const view = siteView(site, config)
  // Built in place rather than spread: a list of 50 sites made each node's fields three times.
  const node = siteFields(view) as unknown as Record<string | symbol, unknown>
  node['assistant'] = assistantFields(view.assistant)
  node['theme'] = themeFields(view.theme)
  node[REST] = view
  return node as unknown as { [REST]: typeof view } & Omit<CamelCased<typeof view>, 'assistant' | 'theme'> & {
      assistant: CamelCased<typeof view.assistant>
      theme: CamelCased<typeof view.theme>
    }
}
export type SiteNode = ReturnType<typeof siteNode>

export function pageNode(page: Page) {
  return tagged(pageView(page), pageFields)
}
export type PageNode = ReturnType<typeof pageNode>

export function blockNode(block: Block) {
  return tagged(blockView(block), blockFields)
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

/** The theme catalogue in camelCase, down to the presets' colours. */
export function themeCatalogNode(catalog: ThemeCatalog) {
  return {
    presets: catalog.presets.map((p) => ({ ...camelCased(p), colors: camelCased(p.colors) })),
    fontPairs: catalog.font_pairs,
    corners: catalog.corners,
  }
}

export function revisionNode(revision: PageRevision) {
  const view = revisionView(revision)
  return {
    id: view.id,
    pageId: view.page_id,
    createdAt: view.created_at,
    operation: view.operation,
    userId: view.user_id,
    tokenId: view.token_id,
    clientId: view.client_id,
    path: view.path,
    locale: view.locale,
    title: view.title,
    description: view.description,
    blocks: view.blocks,
  }
}

export function redirectNode(row: SiteRedirect) {
  const view = redirectView(row)
  return { id: view.id, siteId: view.site_id, from: view.from, to: view.to, status: view.status, createdAt: view.created_at }
}
