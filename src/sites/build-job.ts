import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { BUILD_JOB, finishBuild, startBuild } from '../domain/sites/builds.ts'
import { recordEvent } from '../domain/webhooks/events.ts'
import { withTransaction } from '../domain/transaction.ts'
import type { Db } from '../infra/db.ts'
import type { NamedJob } from '../infra/jobs.ts'
import type { MediaStorage } from '../infra/media-storage.ts'
import { recordReleaseMedia } from '../domain/media/media.ts'
import { savePassages, sitePassages } from './passages.ts'
import { compressFiles, saveReleaseFiles } from './release-store.ts'
import { placePages, RenderError, renderSite } from './render/index.ts'
import { loadRenderInput } from './site-input.ts'

export interface BuildDeps {
  db: Db
  config: Config
  log: Logger
  mediaStorage: MediaStorage
}

/**
 * site.published (DESIGN.md 8): a build went live. Written in the go-live transaction, so the
 * event exists exactly when the release does. Sites without an account (the platform's own) have
 * no subscribers.
 */
export async function announceSitePublished(
  trx: Db,
  published: { accountId: string | null; siteId: string; buildId: string; url: string; pages: number; at: Date },
): Promise<void> {
  if (!published.accountId) return
  await recordEvent(trx, {
    accountId: published.accountId,
    siteId: published.siteId,
    type: 'site.published',
    data: {
      site_id: published.siteId,
      build_id: published.buildId,
      url: `${published.url}/`,
      pages: published.pages,
      published_at: published.at.toISOString(),
    },
  })
}

/** What a failure says in the build's `error`: content problems in their own words, anything else in general terms (the log has the rest). */
function failureMessage(error: unknown): string {
  return error instanceof RenderError ? error.message : 'The build failed unexpectedly; try again, and contact support if it keeps failing'
}

/**
 * Renders a build's site, stores the release (files and assistant passages) and switches the
 * site's live pointer to it, all in one transaction, so a failure leaves the live release as it
 * was. A build already finished is left alone (the job ran twice).
 */
export async function runBuild(deps: BuildDeps, buildId: string): Promise<void> {
  const { db, log } = deps
  const build = await db.selectFrom('builds').select(['id', 'site_id', 'status']).where('id', '=', buildId).executeTakeFirst()
  if (!build || build.status === 'succeeded' || build.status === 'failed') return
  if (build.status === 'queued') await startBuild(db, buildId)
  const started = performance.now()
  try {
    const builtAt = new Date()
    const input = await loadRenderInput(db, deps.config, build.site_id, builtAt, deps.mediaStorage)
    if (!input) throw new RenderError('The site no longer exists')
    const { site, pages } = input
    const files = await compressFiles(renderSite(site, pages))
    const passages = sitePassages(site, placePages(site, pages))
    // The owner's pages: a privacy page the release adds (render/privacy-page.ts) is not counted,
    // nor are its words the assistant's passages.
    const pageCount = pages.filter((p) => site.locales.includes(p.locale)).length
    await withTransaction(db, async (trx) => {
      await saveReleaseFiles(trx, buildId, files)
      await savePassages(trx, site.id, buildId, passages)
      await recordReleaseMedia(trx, buildId, input.mediaIds)
      const finished = await finishBuild(trx, buildId, { status: 'succeeded', pages: pageCount })
      if (finished?.status === 'succeeded')
        await announceSitePublished(trx, {
          accountId: input.accountId,
          siteId: site.id,
          buildId,
          url: site.origin,
          pages: pageCount,
          at: finished.finished_at ?? builtAt,
        })
    })
    log.info({ buildId, siteId: site.id, files: files.length, ms: Math.round(performance.now() - started) }, 'site build went live')
  } catch (error) {
    log.warn({ err: error, buildId }, 'site build failed')
    // If even the failure cannot be recorded (database away), the job is retried.
    await finishBuild(db, buildId, { status: 'failed', error: failureMessage(error) })
  }
}

/** The build job: renders a site's build and makes it live. */
export function buildJob(app: FastifyInstance): NamedJob<{ build_id: string }> {
  const deps = { db: app.db, config: app.config, mediaStorage: app.mediaStorage }
  return { name: BUILD_JOB, definition: { maxAttempts: 3, handler: (payload, { log }) => runBuild({ ...deps, log }, payload.build_id) } }
}
