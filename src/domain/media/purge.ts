import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { scheduleDaily, type NamedJob } from '../../infra/jobs.ts'
import type { MediaStorage } from '../../infra/media-storage.ts'
import { purgeUnshownMedia } from './media.ts'

export const MEDIA_PURGE_JOB = 'media.purge'

/**
 * How many of a site's newest releases keep the images they show, beside the live one. Builds
 * are kept for ever, so "until no release refers to it" (DESIGN.md 14) would keep a removed
 * photo for ever: a release further back than these can still be rolled back to, but the photos
 * removed from the library since are gone from it.
 */
export const RELEASES_KEEPING_MEDIA = 10

/**
 * Releases no longer keep their images once they are neither live nor among their site's
 * newest `RELEASES_KEEPING_MEDIA`; then the images removed from the library that no release
 * keeps go, rows and files. Answers how many images went.
 */
export async function purgeReleasedMedia(db: Db, storage: MediaStorage, accountId?: string): Promise<number> {
  await sql`
    delete from build_media bm
    using builds b
    where b.id = bm.build_id
      and not exists (select 1 from sites s where s.live_build_id = b.id)
      and b.id not in (
        select newer.id from builds newer
        where newer.site_id = b.site_id and newer.status = 'succeeded'
        order by newer.created_at desc, newer.id desc
        limit ${RELEASES_KEEPING_MEDIA}
      )
      ${accountId ? sql`and b.site_id in (select id from sites where account_id = ${accountId})` : sql``}`.execute(db)
  return purgeUnshownMedia(db, storage, accountId)
}

function schedulePurge(db: Db, from = new Date()) {
  return scheduleDaily(db, MEDIA_PURGE_JOB, { hour: 3, minute: 50 }, from)
}

/** The daily purge of removed images that no kept release shows any more. */
export function mediaPurgeJob(db: Db, storage: MediaStorage): NamedJob {
  return {
    name: MEDIA_PURGE_JOB,
    definition: {
      handler: async (_payload, { log }) => {
        await schedulePurge(db)
        const purged = await purgeReleasedMedia(db, storage)
        log.info({ purged }, 'removed images no release shows any more purged')
      },
    },
    scheduleNext: () => schedulePurge(db),
  }
}
