import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { Paging } from '../paging.ts'
import { withTransaction } from '../transaction.ts'
import { recordEvent } from '../webhooks/events.ts'

/**
 * A site's backlinks: pages elsewhere that link to it, each proven by a Webmention that the
 * hosted sites verify (src/sites/webmention.ts). The one home of `site_backlinks` and its ledger
 * `backlink_detections`: every interface reads and writes them through these functions.
 */

/** A Webmention: the page that links (`source`) and the page of the site it links to (`target`). */
export interface Mention {
  site_id: string
  source: string
  target: string
}

/** A site's verified backlinks (each proven by a Webmention), newest first. */
export async function listSiteBacklinks(db: Db, siteId: string, page: Paging) {
  const base = db.selectFrom('site_backlinks').where('site_id', '=', siteId)
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  const items = rows.map((r) => ({
    id: r.id,
    site_id: r.site_id,
    source: r.source,
    target: r.target,
    verified_at: r.verified_at.toISOString(),
    created_at: r.created_at.toISOString(),
  }))
  return { items, total: Number(count.n) }
}

/**
 * Stores a verified backlink. backlink.detected fires once per source and target ever: a backlink
 * that is retracted (the source stopped linking) and verified again is listed again, but the
 * ledger of announced backlinks remembers it, so it is not announced twice.
 */
export async function storeBacklink(db: Db, mention: Mention): Promise<void> {
  await withTransaction(db, async (trx) => {
    const site = await trx.selectFrom('sites').select(['id', 'account_id']).where('id', '=', mention.site_id).executeTakeFirst()
    if (!site) return
    const now = new Date()
    const inserted = await trx
      .insertInto('site_backlinks')
      .values({ id: newId('bl'), site_id: site.id, source: mention.source, target: mention.target, verified_at: now })
      .onConflict((oc) => oc.columns(['site_id', 'source', 'target']).doUpdateSet({ verified_at: now }))
      .returning('id')
      .executeTakeFirstOrThrow()
    const first = await trx
      .insertInto('backlink_detections')
      .values({ site_id: site.id, source: mention.source, target: mention.target, detected_at: now })
      .onConflict((oc) => oc.columns(['site_id', 'source', 'target']).doNothing())
      .returning('site_id')
      .executeTakeFirst()
    if (first && site.account_id) {
      await recordEvent(trx, {
        accountId: site.account_id,
        siteId: site.id,
        type: 'backlink.detected',
        data: {
          backlink_id: inserted.id,
          site_id: site.id,
          source: mention.source,
          target: mention.target,
          detected_at: now.toISOString(),
        },
      })
    }
  })
}

/** A source that no longer links (or is gone) retracts the backlink it made earlier (Webmention 3.2.2). */
export async function retractBacklink(db: Db, mention: Mention): Promise<void> {
  await db
    .deleteFrom('site_backlinks')
    .where('site_id', '=', mention.site_id)
    .where('source', '=', mention.source)
    .where('target', '=', mention.target)
    .execute()
}
