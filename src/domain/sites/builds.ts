import type { Selectable } from 'kysely'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import type { BuildsTable } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import { withTransaction } from '../transaction.ts'
import { assertMayPublish } from '../accounts/limits.ts'
import type { Paging } from '../paging.ts'

export type Build = Selectable<BuildsTable>

/** The job that renders and publishes a build; payload `{build_id}`. Its handler lives with the hosted sites. */
export const BUILD_JOB = 'site.build'

export interface BuildView {
  id: string
  site_id: string
  status: Build['status']
  error: string | null
  pages: number | null
  started_at: string | null
  finished_at: string | null
}

export function buildView(build: Build): BuildView {
  return {
    id: build.id,
    site_id: build.site_id,
    status: build.status,
    error: build.error,
    pages: build.pages,
    started_at: build.started_at?.toISOString() ?? null,
    finished_at: build.finished_at?.toISOString() ?? null,
  }
}

/**
 * Queues a build of a site: a `builds` row and its job, committed together. A site never has two
 * builds at once: while one is queued or running, that one is answered (`created: false`). A site
 * over its account's site limit is not published (403 plan_limit).
 */
export async function queueBuild(db: Db, siteId: string): Promise<{ build: Build; created: boolean }> {
  await assertMayPublish(db, siteId)
  for (;;) {
    const outcome = await withTransaction(db, async (trx) => {
      const inserted = await trx
        .insertInto('builds')
        .values({ id: newId('bld'), site_id: siteId })
        .onConflict((oc) => oc.column('site_id').where('status', 'in', ['queued', 'running']).doNothing())
        .returningAll()
        .executeTakeFirst()
      if (inserted) {
        await enqueueJob(trx, BUILD_JOB, { build_id: inserted.id })
        return { build: inserted, created: true }
      }
      const active = await trx
        .selectFrom('builds')
        .selectAll()
        .where('site_id', '=', siteId)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirst()
      return active ? { build: active, created: false } : undefined
    })
    // Undefined only when the active build finished between the two statements: try again.
    if (outcome) return outcome
  }
}

export async function listSiteBuilds(db: Db, siteId: string, page: Paging): Promise<{ items: Build[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('builds')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('builds')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

export async function findSiteBuild(db: Db, siteId: string, buildId: string): Promise<Build | undefined> {
  return db.selectFrom('builds').selectAll().where('site_id', '=', siteId).where('id', '=', buildId).executeTakeFirst()
}

/** Marks a queued build as running (the build job calls it when it starts). */
export async function startBuild(db: Db, buildId: string): Promise<Build | undefined> {
  return db
    .updateTable('builds')
    .set({ status: 'running', started_at: new Date() })
    .where('id', '=', buildId)
    .where('status', '=', 'queued')
    .returningAll()
    .executeTakeFirst()
}

/**
 * Records a build's end. A succeeded build goes live in the same transaction: the site's live
 * build pointer moves to it, the site becomes live and its first publication time is kept.
 */
export async function finishBuild(
  db: Db,
  buildId: string,
  outcome: { status: 'succeeded'; pages: number } | { status: 'failed'; error: string },
): Promise<Build | undefined> {
  return withTransaction(db, async (trx) => {
    const now = new Date()
    const build = await trx
      .updateTable('builds')
      .set({
        status: outcome.status,
        pages: outcome.status === 'succeeded' ? outcome.pages : null,
        error: outcome.status === 'failed' ? outcome.error.slice(0, 1000) : null,
        started_at: (eb) => eb.fn.coalesce('started_at', eb.val(now)),
        finished_at: now,
      })
      .where('id', '=', buildId)
      .where('status', 'in', ['queued', 'running'])
      .returningAll()
      .executeTakeFirst()
    if (build?.status === 'succeeded') await goLive(trx, build.site_id, build.id, now)
    return build
  })
}

async function goLive(trx: Db, siteId: string, buildId: string, now: Date): Promise<void> {
  await trx
    .updateTable('sites')
    .set((eb) => ({ live_build_id: buildId, status: 'live', published_at: eb.fn.coalesce('published_at', eb.val(now)), updated_at: now }))
    .where('id', '=', siteId)
    .execute()
}

/** Points the site back at an earlier succeeded build of its own (DESIGN.md 9: rollback). */
export async function rollbackTo(db: Db, siteId: string, buildId: string): Promise<Build> {
  return withTransaction(db, async (trx) => {
    const build = await trx.selectFrom('builds').selectAll().where('site_id', '=', siteId).where('id', '=', buildId).executeTakeFirst()
    if (!build) throw new errors.notFound('Build not found')
    if (build.status !== 'succeeded')
      throw new errors.buildNotRollbackable(`Only a succeeded build can go live; this one is ${build.status}`)
    await assertMayPublish(trx, siteId)
    await goLive(trx, siteId, build.id, new Date())
    return build
  })
}
