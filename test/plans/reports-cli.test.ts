import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Logger } from 'pino'
import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { runDueReports } from '../../src/domain/seo-reports/reports.ts'
import { periodOf } from '../../src/domain/seo-reports/schedule.ts'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { buildTestApp, TEST_DATA_KEY } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { baseEnv } from '../helpers/process.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { owner } from './helpers.ts'
import { until } from '../helpers/polling.ts'

// `npm run admin -- reports run-due [--at TIME]` runs the due reports at once. On PostgreSQL the
// CLI runs beside the service on its database (whose own runner may pick the same jobs: one result
// and one mail still); the embedded database admits one process, so there the CLI's function runs.
const root = fileURLToPath(new URL('../..', import.meta.url))
const smtp = await startSmtpServer()
const env = {
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  SMTP_URL: smtp.url,
  MAIL_FROM: 'Web Presence <reports@presence.test>',
  BASE_URL: 'https://app.platform.test',
}
const databaseUrl = onPostgres ? await freshDatabaseUrl() : undefined
const { app } = await buildTestApp({ env, ...(databaseUrl ? { databaseUrl } : {}) })
const run = promisify(execFile)

type Row = { id: string; site_id: string; domain: string; period: string; state: string; score: number | null; error: string | null }

async function runDue(at: Date): Promise<Row[]> {
  if (!onPostgres) {
    const fetcher = createSafeFetcher({ allowPrivateNetworks: true })
    try {
      const outcomes = await runDueReports(
        {
          db: app.db,
          fetcher,
          mailer: app.mailer,
          keyring: app.keyring,
          log: app.log as unknown as Logger,
          urls: { api: app.config.API_URL, base: app.config.BASE_URL, sitesDomain: app.config.SITES_DOMAIN },
        },
        at,
      )
      return outcomes.map(({ audit }) => ({
        id: audit.id,
        site_id: audit.site_id,
        domain: audit.domain,
        period: audit.period!,
        state: audit.state,
        score: audit.score,
        error: audit.error,
      }))
    } finally {
      await fetcher.close()
    }
  }
  const { stdout } = await run(process.execPath, ['scripts/admin.ts', 'reports', 'run-due', '--at', at.toISOString(), '--json'], {
    cwd: root,
    env: { ...baseEnv(), ...env, DATA_ENCRYPTION_KEY: TEST_DATA_KEY, DATABASE_URL: databaseUrl! },
  })
  return JSON.parse(stdout) as Row[]
}

describe('reports run-due', () => {
  it('runs every report due at the time given, at once and once: the stored score is the mailed one', async () => {
    const fixture = await serveFixtureForFile('geo-defects')
    const who = await owner(app, 'cli-reports@example.com', 'pro')
    const site = await createSite(app.db, { name: 'Operator Test', hostname: fixture.domain, accountId: who.accountId, status: 'live' })
    const week = periodOf('weekly', new Date('2031-02-12T00:00:00Z'))
    const endOfWeek = new Date(week.end.getTime() - 1)

    const rows = await runDue(endOfWeek)
    expect(rows).toEqual([
      {
        id: expect.stringMatching(/^audit_/),
        site_id: site.id,
        domain: fixture.domain,
        period: week.key,
        state: 'done',
        score: expect.any(Number),
        error: null,
      },
    ])
    await until(async () => smtp.to(who.email).length >= 1, 20_000, 'the mail')
    expect(await runDue(endOfWeek)).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 500))
    const mails = smtp.to(who.email)
    expect(mails).toHaveLength(1)
    expect(mailText(mails[0]!)).toContain(`Score: ${rows[0]!.score}/100.`)
    expect(await app.db.selectFrom('site_audits').select('id').where('site_id', '=', site.id).execute()).toHaveLength(1)
  }, 120_000)

  it.skipIf(!onPostgres)(
    'refuses a time it cannot read before opening the database',
    async () => {
      const refused = await run(process.execPath, ['scripts/admin.ts', 'reports', 'run-due', '--at', 'next tuesday'], {
        cwd: root,
        env: { ...baseEnv(), DATA_ENCRYPTION_KEY: TEST_DATA_KEY, DATABASE_URL: databaseUrl! },
      }).catch((error: { code: number; stderr: string }) => error)
      expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('--at must be an ISO 8601 time') })
    },
    60_000,
  )
})
