import { sql, type RawBuilder } from 'kysely'
import type { Block } from '../domain/sites/blocks.ts'
import type { Build } from '../domain/sites/builds.ts'
import type { Domain } from '../domain/sites/domains.ts'
import type { Page } from '../domain/sites/pages.ts'
import type { SiteRedirect } from '../domain/sites/redirects.ts'
import type { PageRevision } from '../domain/sites/revisions.ts'
import type { Db } from '../infra/db.ts'
import type { Paging } from '../domain/paging.ts'

/**
 * The children of many parents in one statement each, for the loaders: the same rows, in the
 * same order, as the per-parent lists of REST (listSitePages, listPageBlocks, listSiteDomains,
 * listSiteBuilds, listSiteRedirects, listPageRevisions), windowed per parent. The parents were read through the account first, so
 * their children are the account's. Each parent's total rides on its rows; the first row of a
 * parent is always read, so a window past the end still knows the total.
 */

export interface Slice<T> {
  items: T[]
  total: number
}

type Ranked<T> = T & { parent_id: string; rn: number; total_count: number }

async function windowed<T>(
  db: Db,
  table: string,
  parent: string,
  order: RawBuilder<unknown>,
  parentIds: readonly string[],
  window: Paging,
): Promise<Map<string, Slice<T>>> {
  const { rows } = await sql<Ranked<T>>`
    select * from (
      select t.*, t.${sql.ref(parent)} as parent_id,
        (row_number() over (partition by t.${sql.ref(parent)} order by ${order}))::int as rn,
        (count(*) over (partition by t.${sql.ref(parent)}))::int as total_count
      from ${sql.table(table)} t
      where t.${sql.ref(parent)} = any(${[...parentIds]}::text[])
    ) ranked
    where (rn > ${window.offset} and rn <= ${window.offset + window.limit}) or rn = 1
    order by parent_id, rn`.execute(db)
  const slices = new Map<string, Slice<T>>(parentIds.map((id) => [id, { items: [], total: 0 }]))
  for (const { parent_id: parentId, rn, total_count: total, ...row } of rows) {
    const slice = slices.get(parentId)!
    slice.total = total
    if (rn > window.offset && rn <= window.offset + window.limit) slice.items.push(row as unknown as T)
  }
  return slices
}

export function pagesOfSites(db: Db, siteIds: readonly string[], window: Paging): Promise<Map<string, Slice<Page>>> {
  return windowed<Page>(db, 'pages', 'site_id', sql`t.locale, t.path`, siteIds, window)
}

export function blocksOfPages(db: Db, pageIds: readonly string[], window: Paging): Promise<Map<string, Slice<Block>>> {
  return windowed<Block>(db, 'blocks', 'page_id', sql`t.position, t.id`, pageIds, window)
}

export function domainsOfSites(db: Db, siteIds: readonly string[], window: Paging): Promise<Map<string, Slice<Domain>>> {
  return windowed<Domain>(db, 'domains', 'site_id', sql`t.created_at, t.id`, siteIds, window)
}

export function buildsOfSites(db: Db, siteIds: readonly string[], window: Paging): Promise<Map<string, Slice<Build>>> {
  return windowed<Build>(db, 'builds', 'site_id', sql`t.created_at desc, t.id desc`, siteIds, window)
}

export function redirectsOfSites(db: Db, siteIds: readonly string[], window: Paging): Promise<Map<string, Slice<SiteRedirect>>> {
  return windowed<SiteRedirect>(db, 'site_redirects', 'site_id', sql`t.from_path`, siteIds, window)
}

export function revisionsOfPages(db: Db, pageIds: readonly string[], window: Paging): Promise<Map<string, Slice<PageRevision>>> {
  return windowed<PageRevision>(db, 'page_revisions', 'page_id', sql`t.seq desc`, pageIds, window)
}
