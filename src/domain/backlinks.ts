import type { Db } from '../infra/db.ts'

/** A site's verified backlinks (each proven by a Webmention), newest first. */
export async function listSiteBacklinks(db: Db, siteId: string, page: { limit: number; offset: number }) {
  const base = db.selectFrom('site_backlinks').where('site_id', '=', siteId)
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  const items = rows.map((r) => ({ id: r.id, site_id: r.site_id, source: r.source, target: r.target, verified_at: r.verified_at.toISOString(), created_at: r.created_at.toISOString() }))
  return { items, total: Number(count.n) }
}
