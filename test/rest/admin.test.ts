import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { PROCESS_TIMEOUT_MS, runAdmin } from '../helpers/process.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'

// Every run opens (and on the embedded database, replays) the database: seconds on a busy machine.
const SLOW = 240_000

// On PostgreSQL the CLI runs beside the running service on its database; the embedded database
// admits one process at a time, so there the CLI runs first and the service opens its files after.
const databaseUrl = onPostgres ? await freshDatabaseUrl() : ''
const dataDir = mkdtempSync(join(tmpdir(), 'wps-admin-'))
cleanUpAfter(() => rmSync(dataDir, { recursive: true, force: true }))
const live = onPostgres ? await buildTestApp({ databaseUrl }) : undefined

const admin = (...args: string[]) => runAdmin({ DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }, ...args)

describe('npm run admin', { timeout: PROCESS_TIMEOUT_MS }, () => {
  let accountId = ''
  let secret = ''

  it(
    'prints its help',
    async () => {
      const help = await admin('--help')
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('account create --email EMAIL --plan PLAN')
      expect(help.stdout).toContain('token create ACCOUNT_ID --scopes')
      expect((await admin()).code).toBe(2)
      expect((await admin('account', 'explode')).code).toBe(2)
      expect((await admin('--bogus')).code).toBe(2)
      // Bad arguments are refused before the database is opened.
      expect((await admin('account', 'create', '--email', 'nobody', '--plan', 'pro')).code).toBe(2)
      expect((await admin('account', 'create', '--email', 'x@example.com', '--plan', 'gold')).code).toBe(2)
      expect((await admin('account', 'set-quota', 'acct_x', 'lots')).code).toBe(2)
      expect((await admin('account', 'set-plan', 'not-an-account', 'pro')).code).toBe(2)
      expect((await admin('token', 'create', 'acct_x', '--scopes', 'root')).code).toBe(2)
      expect((await admin('token', 'create', 'acct_x', '--scopes', 'read:sites', '--expires-in', '-5')).code).toBe(2)
    },
    SLOW,
  )

  it(
    'creates an account for an email with a plan, once',
    async () => {
      const created = await admin('account', 'create', '--email', 'Owner@Example.com', '--plan', 'pro', '--json')
      expect(created.code, created.stderr).toBe(0)
      const account = JSON.parse(created.stdout)
      expect(account).toEqual({ id: expect.stringMatching(/^acct_/), email: 'owner@example.com', plan: 'pro' })
      accountId = account.id
    },
    SLOW,
  )

  // The embedded database takes most of a minute to open here: the commands' own checks run on PostgreSQL.
  it.runIf(onPostgres)('refuses a second account for an email and commands for a missing account', async () => {
    const again = await admin('account', 'create', '--email', 'owner@example.com', '--plan', 'max', '--json')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(accountId)
    expect((await admin('account', 'set-plan', 'acct_missing', 'pro')).code).toBe(1)
    expect((await admin('token', 'create', 'acct_missing', '--scopes', 'read:sites')).code).toBe(1)
  })

  it.runIf(onPostgres)('changes plans and lists accounts', async () => {
    expect(JSON.parse((await admin('account', 'set-plan', accountId, 'plus', '--json')).stdout)).toMatchObject({
      id: accountId,
      plan: 'plus',
    })
    const list = JSON.parse((await admin('account', 'list', '--json')).stdout)
    expect(list).toContainEqual(expect.objectContaining({ id: accountId, email: 'owner@example.com', plan: 'plus', quota_override: null }))
    expect(JSON.parse((await admin('account', 'set-plan', accountId, 'max', '--json')).stdout)).toMatchObject({ plan: 'max' })
  })

  it(
    'sets a quota override',
    async () => {
      expect(JSON.parse((await admin('account', 'set-quota', accountId, '25000', '--json')).stdout)).toMatchObject({
        id: accountId,
        quota_override: 25000,
      })
    },
    SLOW,
  )

  it(
    'creates an API token and prints its secret once',
    async () => {
      const created = await admin(
        'token',
        'create',
        accountId,
        '--scopes',
        'read:sites,manage:tokens',
        '--name',
        'ci',
        '--expires-in',
        '3600',
        '--json',
      )
      expect(created.code, created.stderr).toBe(0)
      const token = JSON.parse(created.stdout)
      expect(token).toEqual({
        id: expect.stringMatching(/^tok_/),
        token: expect.stringMatching(/^wps_tok_/),
        scopes: ['read:sites', 'manage:tokens'],
        expires_at: expect.any(String),
      })
      expect(Date.parse(token.expires_at) - Date.now()).toBeGreaterThan(3500_000)
      secret = token.token
    },
    SLOW,
  )

  it(
    'gives the running service an account and token it accepts at once',
    async () => {
      const { app } = live ?? (await buildTestApp({ env: { DATABASE_URL: '', DATA_DIR: dataDir } }))
      const res = await app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${secret}` } })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({
        id: accountId,
        plan: onPostgres ? 'max' : 'pro',
        quota: { requests_per_hour: 25000, override: true },
      })
    },
    SLOW,
  )
})
