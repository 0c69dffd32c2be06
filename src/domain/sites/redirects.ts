import type { Selectable } from 'kysely'
import { Type } from 'typebox'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { SiteRedirectsTable } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import { uniqueViolation } from '../transaction.ts'
import { DateTime, SiteId } from './views.ts'
import type { Paging } from '../paging.ts'

/**
 * Redirects of a site (DESIGN.md 19): an address of the site that sends visitors on with 301 or
 * 302, answered on the site's hosts when its release has no file there (a page published at that
 * address again wins). Added by hand, or when a published page moves (`redirectMovedPage`).
 */

export type SiteRedirect = Selectable<SiteRedirectsTable>

/** How far a chain of redirects is followed when looking for a loop; longer chains are refused too. */
const MAX_CHAIN = 20

export const RedirectId = Type.String({ pattern: '^rdr_[A-Za-z0-9_-]{8,64}$', description: 'rdr_…' })
/** An address on the site: a path without query or fragment, outside the service's own /_wps/. */
export const REDIRECT_FROM_PATTERN = '^/(?!_wps/)[^\\s?#]*$'
export const RedirectFrom = Type.String({
  minLength: 1,
  maxLength: 500,
  pattern: REDIRECT_FROM_PATTERN,
  description: 'The address on the site that redirects, a path such as /old-page',
})
export const RedirectTo = Type.String({
  minLength: 1,
  maxLength: 2000,
  pattern: '^(/[^\\s#]*|https?://[^\\s]+)$',
  description: 'Where visitors go: a path of the same site (/new-page) or an http(s) URL',
})
export const RedirectStatus = Type.Union([Type.Literal(301), Type.Literal(302)])

export const Redirect = Type.Object(
  { id: RedirectId, site_id: SiteId, from: Type.String(), to: Type.String(), status: RedirectStatus, created_at: DateTime },
  { additionalProperties: false, description: 'A redirect of a site' },
)
export const NewRedirect = Type.Object(
  {
    from: RedirectFrom,
    to: RedirectTo,
    status: Type.Optional(Type.Union([Type.Literal(301), Type.Literal(302)], { description: '301 (moved for good, the default) or 302' })),
  },
  { additionalProperties: false },
)

export interface RedirectInput {
  from: string
  to: string
  status?: 301 | 302 | undefined
}

export interface RedirectView {
  id: string
  site_id: string
  from: string
  to: string
  status: 301 | 302
  created_at: string
}

export function redirectView(row: SiteRedirect): RedirectView {
  return {
    id: row.id,
    site_id: row.site_id,
    from: row.from_path,
    to: row.to_target,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
  }
}

export async function listSiteRedirects(db: Db, siteId: string, page: Paging): Promise<{ items: SiteRedirect[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('site_redirects')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('from_path')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('site_redirects')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

/** Every redirect of the given sites, for the front door. */
export async function redirectsOfSites(db: Db, siteIds: readonly string[]): Promise<SiteRedirect[]> {
  if (!siteIds.length) return []
  return db.selectFrom('site_redirects').selectAll().where('site_id', 'in', siteIds).execute()
}

/** The path a target names on the same site, or undefined for another site's URL. */
function samePath(to: string): string | undefined {
  return to.startsWith('/') ? (to.split('?')[0] ?? to) : undefined
}

/**
 * Refuses a redirect that would send visitors round in a circle (422 redirect_loop): its target,
 * followed through the site's other redirects, comes back to where it starts.
 */
function checkNoLoop(from: string, to: string, others: ReadonlyMap<string, string>): void {
  let at = samePath(to)
  for (let step = 0; at !== undefined; step++) {
    if (at === from) throw new errors.redirectLoop(`A redirect from ${from} to ${to} would lead visitors back to ${from}`)
    if (step >= MAX_CHAIN)
      throw new errors.redirectLoop(`A redirect from ${from} to ${to} would start a chain of more than ${MAX_CHAIN} redirects`)
    const next = others.get(at)
    at = next === undefined ? undefined : samePath(next)
  }
}

export async function createRedirect(db: Db, siteId: string, input: RedirectInput): Promise<SiteRedirect> {
  const others = await db.selectFrom('site_redirects').select(['from_path', 'to_target']).where('site_id', '=', siteId).execute()
  checkNoLoop(input.from, input.to, new Map(others.map((r) => [r.from_path, r.to_target])))
  if (others.some((r) => r.from_path === input.from)) throw fromTaken(input.from)
  try {
    return await db
      .insertInto('site_redirects')
      .values({ id: newId('rdr'), site_id: siteId, from_path: input.from, to_target: input.to, status: input.status ?? 301 })
      .returningAll()
      .executeTakeFirstOrThrow()
  } catch (error) {
    if (uniqueViolation(error) === 'site_redirects_site_from') throw fromTaken(input.from)
    throw error
  }
}

function fromTaken(from: string) {
  return new errors.redirectFromTaken(`The site already redirects ${from}; delete that redirect first`)
}

export async function getSiteRedirect(db: Db, siteId: string, redirectId: string): Promise<SiteRedirect | undefined> {
  return db.selectFrom('site_redirects').selectAll().where('site_id', '=', siteId).where('id', '=', redirectId).executeTakeFirst()
}

export async function deleteRedirect(db: Db, siteId: string, redirectId: string): Promise<boolean> {
  const gone = await db.deleteFrom('site_redirects').where('site_id', '=', siteId).where('id', '=', redirectId).executeTakeFirst()
  return Number(gone.numDeletedRows) > 0
}

/**
 * A published page moved from `from` to `to` (its addresses on the site): visitors and search
 * engines following the old address are sent on with a 301. A redirect from the new address goes
 * (a page lives there now), redirects that led to the old address lead to the new one (no
 * chains), and an older redirect from the old address is replaced.
 */
export async function redirectMovedPage(db: Db, siteId: string, from: string, to: string): Promise<void> {
  if (from === to) return
  await db.deleteFrom('site_redirects').where('site_id', '=', siteId).where('from_path', '=', to).execute()
  await db.updateTable('site_redirects').set({ to_target: to }).where('site_id', '=', siteId).where('to_target', '=', from).execute()
  await db
    .insertInto('site_redirects')
    .values({ id: newId('rdr'), site_id: siteId, from_path: from, to_target: to, status: 301 })
    .onConflict((oc) => oc.columns(['site_id', 'from_path']).doUpdateSet({ to_target: to, status: 301 }))
    .execute()
}
