import type { Logger } from 'pino'
import type { DataStore, Unlisten } from '../infra/db.ts'
import { HOSTED_SITES_CHANNEL, livePassages, type LiveSitePassages } from '../domain/sites/passages.ts'
import { LOCALES } from '../domain/locales.ts'
import type { KnowledgeBase } from './knowledge.ts'

/**
 * Keeps what the assistant knows of hosted sites in step with their live builds: every live site's
 * passages are indexed at start, and a NOTIFY on the hosted-sites channel (a site's status or live
 * build changed, a build finished) re-reads that site. A site whose live build is unchanged is not
 * re-indexed, so domain edits cost one small query. Returns the function that stops listening.
 */
export async function syncSiteKnowledge(store: DataStore, kb: KnowledgeBase, log: Logger): Promise<Unlisten> {
  const indexed = new Map<string, string>()
  const apply = (siteId: string | undefined, live: LiveSitePassages[]) => {
    const seen = new Set<string>()
    for (const site of live) {
      seen.add(site.siteId)
      if (indexed.get(site.siteId) === site.buildId) continue
      for (const locale of LOCALES)
        kb.indexSitePassages(
          site.siteId,
          locale,
          site.passages.filter((p) => p.locale === locale),
        )
      indexed.set(site.siteId, site.buildId)
    }
    for (const gone of siteId ? [siteId] : [...indexed.keys()]) {
      if (seen.has(gone)) continue
      kb.removeSitePassages(gone)
      indexed.delete(gone)
    }
  }
  // Reloads run one after another, so an older answer never overwrites a newer one.
  let queue: Promise<void> = Promise.resolve()
  const refresh = (siteId?: string) => {
    queue = queue
      .then(async () => apply(siteId, await livePassages(store.db, siteId)))
      .catch((error: unknown) => log.warn({ err: error, siteId }, 'indexing hosted-site passages failed'))
    return queue
  }
  // An empty payload (a reconnect) reloads every site.
  const unlisten = await store.listen(HOSTED_SITES_CHANNEL, (siteId) => void refresh(siteId || undefined))
  await refresh()
  return unlisten
}
