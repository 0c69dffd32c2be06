import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { retentionJob } from './agent/retention.ts'
import { reconcileJob } from './domain/billing/reconcile-job.ts'
import { defineReportJobs, SCHEDULE_JOB, scheduleNextPass } from './domain/seo-reports/reports.ts'
import { dnsResolver } from './domain/sites/dns-verify.ts'
import { domainVerifyJob } from './domain/sites/domains.ts'
import { socialPostJob } from './domain/social/publish.ts'
import { statsPurgeJob } from './domain/stats/retention.ts'
import { mediaPurgeJob } from './domain/media/purge.ts'
import { weeklySummaryJob } from './domain/stats/weekly-summary.ts'
import { defineWebhookJobs, WEBHOOK_USER_AGENT } from './domain/webhooks/engine.ts'
import { defaultRetryClock } from './domain/webhooks/retry.ts'
import { persistedQueryPurgeJob } from './graphql/persisted-queries.ts'
import { identityPurgeJob } from './identity/stores/purge.ts'
import { createSafeFetcher, type SafeFetcherOptions } from './infra/fetcher.ts'
import type { NamedJob } from './infra/jobs.ts'
import { createCruxClient } from './public/audits/cwv/crux.ts'
import { snapshotJob } from './public/audits/cwv/job.ts'
import { restPurgeJob } from './rest/purge.ts'
import { staticAsset } from './sites/assets.ts'
import { buildJob } from './sites/build-job.ts'
import { exportExpireJob, exportJob } from './domain/your-data/archive.ts'
import { eraseJob } from './domain/your-data/deletion.ts'
import { removeAccountFiles } from './domain/media/media.ts'
import { webmentionJob } from './sites/webmention.ts'
import { notificationJobs } from './domain/notifications/deliver.ts'

/**
 * The jobs plugin: every background job is defined here, on the one runner every instance runs
 * (`app.jobs`), and each recurring one has its next run put in place once the app is ready. A
 * job's work lies with its topic in src/domain, or with the room whose data it keeps (the purges,
 * builds, Webmentions, CrUX snapshots); route files only enqueue. Registered after the rooms, before
 * the app is ready (the runner starts then).
 */
export default async function jobs(app: FastifyInstance) {
  const { db, keyring, mailer, config } = app
  const log = app.log as unknown as Logger
  /** Every outbound fetch of a job goes through the SSRF-safe fetcher, one pool per kind of work. */
  const outbound = (options: Omit<SafeFetcherOptions, 'allowPrivateNetworks'>) => {
    const fetcher = createSafeFetcher({ allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, ...options })
    app.addHook('onClose', () => fetcher.close())
    return fetcher
  }

  // Webhooks (DESIGN.md 8): no redirect followed, the first kilobyte of an answer kept.
  defineWebhookJobs(app.jobs, {
    db,
    keyring,
    fetcher: outbound({ userAgent: WEBHOOK_USER_AGENT, maxRedirects: 0, maxBytes: 1024, connections: 32 }),
    mailer,
    log,
    clock: defaultRetryClock(),
  })
  // Site audits and the scheduled SEO reports.
  defineReportJobs(app.jobs, {
    db,
    fetcher: outbound({ connections: 4 }),
    mailer,
    keyring,
    log,
    urls: { api: config.API_URL, base: config.BASE_URL, sitesDomain: config.SITES_DOMAIN },
  })

  const named: NamedJob[] = [
    domainVerifyJob(db, dnsResolver(config.DNS_SERVERS)),
    socialPostJob({ db, keyring, fetcher: outbound({ connections: 4 }) }),
    buildJob(app),
    webmentionJob(db, outbound({ timeoutMs: 10_000, maxBytes: 1024 * 1024 })),
    identityPurgeJob(db),
    retentionJob(db),
    restPurgeJob(app),
    persistedQueryPurgeJob(app),
    statsPurgeJob(db),
    mediaPurgeJob(db, app.mediaStorage),
    weeklySummaryJob({ db, mailer, keyring, log, baseUrl: config.BASE_URL }),
    // Mail to owners and editors when visitors write (DESIGN.md 17): at once, or in a daily digest.
    ...notificationJobs({ db, keyring, mailer, log, baseUrl: config.BASE_URL }),
    exportJob({ db, keyring, mailer, log, config, storage: app.mediaStorage, sharedFile: staticAsset }),
    exportExpireJob(db),
    // The erase cancels the subscription at Stripe, removes the media kept in object storage and drops the calls counted in memory first.
    eraseJob(db, {
      cancelSubscription: (_db, accountId) => app.billing.cancelForErase(accountId),
      removeObjects: (inner, accountId) => removeAccountFiles(inner, app.mediaStorage, accountId),
      forgetCounts: (accountId) => app.frame.forgetCounts(accountId),
    }),
    reconcileJob(app.billing),
  ]
  if (config.CRUX_API_KEY) named.push(snapshotJob(db, createCruxClient(config.CRUX_API_URL, config.CRUX_API_KEY)))
  for (const job of named) app.jobs.define(job.name, job.definition)

  const recurring: Array<{ name: string; scheduleNext: () => Promise<unknown> }> = [
    ...named.flatMap((job) => (job.scheduleNext ? [{ name: job.name, scheduleNext: job.scheduleNext }] : [])),
    { name: SCHEDULE_JOB, scheduleNext: () => scheduleNextPass(db) },
  ]
  app.addHook('onReady', async () => {
    for (const job of recurring) {
      await job.scheduleNext().catch((error: unknown) => app.log.warn({ err: error, job: job.name }, 'could not schedule a recurring job'))
    }
  })
}
