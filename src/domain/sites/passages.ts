import type { Db } from '../../infra/db.ts'
import type { Locale } from '../locales.ts'

/**
 * The channel the hosted-sites triggers notify on, with the site's id as payload: any change to a
 * site's status or live build, its domains or its builds (migrations/2026-11-23T1200-hosted-sites.ts).
 */
export const HOSTED_SITES_CHANNEL = 'hosted_sites'

/** A passage of a published page, as its build stored it (src/sites/passages.ts). */
export interface StoredPassage {
  locale: Locale
  /** The page's canonical URL on the site. */
  url: string
  title: string
  text: string
}

/** What a live site has published: the build its domains serve and that build's passages in written order. */
export interface LiveSitePassages {
  siteId: string
  buildId: string
  passages: StoredPassage[]
}

/**
 * The passages of live sites' live builds: of one site (an empty list when it is not live or has
 * no live build), or of every live site when no site is named.
 */
export async function livePassages(db: Db, siteId?: string): Promise<LiveSitePassages[]> {
  let query = db
    .selectFrom('sites')
    .leftJoin('site_passages', 'site_passages.build_id', 'sites.live_build_id')
    .select([
      'sites.id as site_id',
      'sites.live_build_id',
      'site_passages.locale',
      'site_passages.url',
      'site_passages.title',
      'site_passages.text',
    ])
    .where('sites.status', '=', 'live')
    .where('sites.live_build_id', 'is not', null)
    .orderBy('sites.id')
    .orderBy('site_passages.position')
  if (siteId) query = query.where('sites.id', '=', siteId)
  const bySite = new Map<string, LiveSitePassages>()
  for (const row of await query.execute()) {
    let site = bySite.get(row.site_id)
    if (!site) bySite.set(row.site_id, (site = { siteId: row.site_id, buildId: row.live_build_id!, passages: [] }))
    if (row.locale !== null) site.passages.push({ locale: row.locale, url: row.url!, title: row.title!, text: row.text! })
  }
  return [...bySite.values()]
}
