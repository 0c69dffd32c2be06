// Operator commands for accounts, plans, quotas, add-ons, API tokens and SEO reports. `npm run admin -- --help`.
// Works on DATABASE_URL beside running servers (PostgreSQL); see HELP for the embedded database.
import { parseArgs } from 'node:util'
import { describeAddOns, MAX_QUANTITY } from '../src/domain/accounts/add-ons.ts'
import { API_SCOPES } from '../src/domain/accounts/api-tokens.ts'
import { ADD_ONS, isAddOn, isPlan, PLANS } from '../src/domain/accounts/plans.ts'
import type { Config } from '../src/config.ts'
import type { Keyring } from '../src/infra/crypto.ts'
import type { Db } from '../src/infra/db.ts'

// The rest of the service (the database drivers, Stripe, the mailer) is imported by the command
// that needs it, once the command line has been checked: a typo or --help answers at once.

const HELP = `Usage: npm run admin -- <command> [options]

Commands:
  account create --email EMAIL --plan PLAN   create the account of a person (prints {id, email, plan})
  account list                               list accounts with email, plan, quota override and add-ons
  account set-plan ACCOUNT_ID PLAN           change an account's plan (a downgrade deletes nothing)
  account set-quota ACCOUNT_ID N|none        requests an hour instead of the plan's budget; none removes it
  account add-on ACCOUNT_ID ADDON on|off [--quantity N]
                                             switch an add-on of the price list on (extra_domain and
                                             extra_seat with a quantity, 1 by default) or off
  token create ACCOUNT_ID --scopes a,b [--name NAME] [--expires-in SECONDS]
                                             create an API token (prints {id, token, scopes, expires_at};
                                             the secret is shown this once)
  billing sync                               make Stripe's products and prices from the price list (run
                                             after every change of it; running it again changes nothing)
  billing reconcile                          read every account's subscription back from Stripe now
                                             (the service does it every hour)
  billing release ACCOUNT_ID                 hand an account set by hand back to Stripe (set-plan and
                                             create mark the plan as the operator's; Stripe's events
                                             leave such a plan alone)
  reports run-due [--at TIME]                queue the scheduled SEO reports due now (or at TIME, an
                                             ISO 8601 time in the current period) and run them at once

Options:
  --json        machine-readable output on stdout
  -h, --help    this text

Plans: ${PLANS.join(', ')}. Add-ons: ${ADD_ONS.join(', ')}. Scopes: ${API_SCOPES.join(', ')}.
The database is DATABASE_URL, as for the server. On PostgreSQL the commands run beside running
servers. The embedded database (DATABASE_URL unset) can be opened by one process only: stop the
server first, or use PostgreSQL.`

class UsageError extends Error {}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        plan: { type: 'string' },
        scopes: { type: 'string' },
        name: { type: 'string' },
        'expires-in': { type: 'string' },
        quantity: { type: 'string' },
        at: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${HELP}`)
    process.exit(2)
  }
})()

function print(result: unknown, text: string): void {
  console.log(values.json ? JSON.stringify(result, null, 2) : text)
}

function plan(value: string | undefined): (typeof PLANS)[number] {
  if (!isPlan(value)) throw new UsageError(`the plan must be one of ${PLANS.join(', ')}`)
  return value
}

function wholeNumber(value: string | undefined, what: string): number {
  if (!value || !/^\d{1,9}$/.test(value)) throw new UsageError(`${what} must be a whole number`)
  return Number(value)
}

async function mustExist(db: Db, id: string) {
  const { accountById } = await import('../src/domain/accounts/accounts.ts')
  const account = await accountById(db, id)
  if (!account) throw new Error(`no account ${id}`)
  return account
}

type Action = (db: Db, keyring: Keyring, config: Config) => Promise<void>

/** Checks the command line completely before the database is opened, so a typo costs nothing. */
function parseCommand(): Action {
  const [group, verb, first, second, third] = positionals
  const command = [group, verb].filter(Boolean).join(' ')
  const accountId = () => {
    if (!first || !/^acct_[A-Za-z0-9_-]{1,64}$/.test(first)) throw new UsageError('an ACCOUNT_ID (acct_…) is required')
    return first
  }
  switch (command) {
    case 'account create': {
      const email = values.email?.trim()
      if (!email || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw new UsageError('--email must be an email address')
      const chosen = plan(values.plan)
      return async (db, keyring) => {
        const { accountByEmailHash, updateAccount } = await import('../src/domain/accounts/accounts.ts')
        const { findOrCreateUser, loadEmailHasher } = await import('../src/identity/stores/users.ts')
        const { setManual } = await import('../src/domain/billing/billing-state.ts')
        const hash = (await loadEmailHasher(db, keyring))(email)
        const existing = await accountByEmailHash(db, hash)
        if (existing) throw new Error(`${email} already has account ${existing.id} (plan ${existing.plan}); use account set-plan`)
        const user = await findOrCreateUser(db, keyring, hash, email)
        await updateAccount(db, user.accountId, { plan: chosen })
        if (chosen !== 'free') await setManual(db, user.accountId, true)
        print({ id: user.accountId, email: user.email, plan: chosen }, `${user.accountId}  ${user.email}  ${chosen}`)
      }
    }
    case 'account list':
      return async (db, keyring) => {
        const { listAccounts } = await import('../src/domain/accounts/accounts.ts')
        const accounts = await listAccounts(db, keyring)
        const line = (a: (typeof accounts)[number]) => {
          const addOns = describeAddOns(a.add_ons)
          return `${a.id}  ${a.email ?? '-'}  ${a.plan}${a.quota_override === null ? '' : `  quota ${a.quota_override}/h`}${addOns ? `  add-ons ${addOns}` : ''}`
        }
        print(accounts, accounts.map(line).join('\n') || '(no accounts)')
      }
    case 'account set-plan':
    case 'account set-quota': {
      const id = accountId()
      const change =
        verb === 'set-plan'
          ? { plan: plan(second) }
          : { quotaOverride: second === 'none' ? null : wholeNumber(second, 'the quota (N or none)') }
      return async (db) => {
        const { updateAccount } = await import('../src/domain/accounts/accounts.ts')
        const { setManual } = await import('../src/domain/billing/billing-state.ts')
        await mustExist(db, id)
        const updated = (await updateAccount(db, id, change))!
        // A plan set by hand is the operator's: Stripe's events leave it alone until `billing release`.
        if (change.plan) await setManual(db, id, true)
        print(
          { id: updated.id, plan: updated.plan, quota_override: updated.quota_override },
          `${updated.id}  plan ${updated.plan}  quota ${updated.quota_override ?? 'of the plan'}`,
        )
      }
    }
    case 'account add-on': {
      const id = accountId()
      if (!isAddOn(second)) throw new UsageError(`the add-on must be one of ${ADD_ONS.join(', ')}`)
      if (third !== 'on' && third !== 'off') throw new UsageError('say on or off after the add-on')
      const quantity = values.quantity === undefined ? undefined : wholeNumber(values.quantity, '--quantity')
      if (quantity !== undefined && (quantity < 1 || quantity > MAX_QUANTITY))
        throw new UsageError(`--quantity must be from 1 to ${MAX_QUANTITY}`)
      const addOn = second
      return async (db) => {
        const { setAddOn } = await import('../src/domain/accounts/add-ons.ts')
        await mustExist(db, id)
        const result = (await setAddOn(db, { accountId: id, addOn, on: third === 'on', ...(quantity === undefined ? {} : { quantity }) }))!
        print(
          { id: result.accountId, plan: result.plan, add_ons: result.addOns },
          `${result.accountId}  plan ${result.plan}  add-ons ${describeAddOns(result.addOns) || 'none'}`,
        )
      }
    }
    case 'billing sync':
      return async (_db, _keyring, config) => {
        const { createStripe } = await import('../src/domain/billing/stripe-client.ts')
        const { syncCatalogue } = await import('../src/domain/billing/catalogue.ts')
        const stripe = createStripe(config)
        if (!stripe) throw new Error('STRIPE_SECRET_KEY is not set: there is no Stripe account to make the prices in')
        const report = await syncCatalogue(stripe)
        const { products, prices } = report
        print(
          report,
          [
            `products: ${products.created.length} created, ${products.updated.length} updated, ${products.unchanged.length} unchanged`,
            `prices: ${prices.created.length} created, ${prices.replaced.length} replaced (old ones retired), ${prices.unchanged.length} unchanged`,
          ].join('\n'),
        )
      }
    case 'billing reconcile':
      return async (db, keyring, config) => {
        const { createStripe } = await import('../src/domain/billing/stripe-client.ts')
        const { Billing } = await import('../src/domain/billing/service.ts')
        const { createMailer } = await import('../src/infra/mailer.ts')
        const { pino } = await import('pino')
        const stripe = createStripe(config)
        if (!stripe) throw new Error('STRIPE_SECRET_KEY is not set: there is no Stripe account to read from')
        const log = pino({ level: 'warn' }, pino.destination(2))
        const mailer = createMailer({ config, db, keyring, log })
        const billing = new Billing({
          stripe,
          automaticTax: config.STRIPE_AUTOMATIC_TAX,
          db,
          keyring,
          mailer,
          log,
          baseUrl: config.BASE_URL,
        })
        const result = await billing.reconcile()
        print(result, `${result.accounts} accounts read back, ${result.changed} changed`)
      }
    case 'billing release': {
      const id = accountId()
      return async (db) => {
        const { setManual } = await import('../src/domain/billing/billing-state.ts')
        await mustExist(db, id)
        await setManual(db, id, false)
        print({ id, billing: 'stripe' }, `${id}  billing by Stripe again (applied at the next event or reconciliation)`)
      }
    }
    case 'reports run-due': {
      const at = values.at === undefined ? new Date() : new Date(values.at)
      if (Number.isNaN(at.getTime())) throw new UsageError('--at must be an ISO 8601 time, e.g. 2026-11-29T12:00:00Z')
      return async (db, keyring, config) => {
        const { pino } = await import('pino')
        const { createSafeFetcher } = await import('../src/infra/fetcher.ts')
        const { createMailer } = await import('../src/infra/mailer.ts')
        const { runDueReports } = await import('../src/domain/seo-reports/reports.ts')
        const log = pino({ level: 'warn' }, pino.destination(2))
        const fetcher = createSafeFetcher({ allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, connections: 4 })
        try {
          const mailer = createMailer({ config, db, keyring, log })
          const urls = { api: config.API_URL, base: config.BASE_URL, sitesDomain: config.SITES_DOMAIN }
          const outcomes = await runDueReports({ db, fetcher, mailer, keyring, log, urls }, at)
          const rows = outcomes.map(({ audit }) => ({
            id: audit.id,
            site_id: audit.site_id,
            domain: audit.domain,
            period: audit.period,
            state: audit.state,
            score: audit.score,
            error: audit.error,
          }))
          print(
            rows,
            rows
              .map(
                (r) =>
                  `${r.id}  ${r.site_id}  ${r.domain}  ${r.period}  ${r.state}${r.score === null ? '' : `  ${r.score}/100`}${r.error ? `  ${r.error}` : ''}`,
              )
              .join('\n') || '(no reports due)',
          )
          if (outcomes.some((o) => o.error)) process.exitCode = 1
        } finally {
          await fetcher.close()
        }
      }
    }
    case 'token create': {
      const id = accountId()
      const scopes = (values.scopes ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      const unknown = scopes.filter((s) => !(API_SCOPES as readonly string[]).includes(s))
      if (!scopes.length || unknown.length) throw new UsageError(`--scopes must list scopes among ${API_SCOPES.join(', ')}`)
      const name = values.name ?? 'admin'
      if (name.length < 1 || name.length > 100) throw new UsageError('--name must be 1 to 100 characters')
      const expiresIn = values['expires-in'] === undefined ? undefined : wholeNumber(values['expires-in'], '--expires-in')
      if (expiresIn === 0) throw new UsageError('--expires-in must be at least 1 second')
      return async (db) => {
        const { createApiToken } = await import('../src/domain/accounts/api-tokens.ts')
        await mustExist(db, id)
        const expiresAt = expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000)
        const { token, secret } = await createApiToken(db, { accountId: id, name, scopes, expiresAt })
        print(
          { id: token.id, token: secret, scopes: token.scopes, expires_at: token.expires_at },
          `${token.id}\n${secret}\n(the secret is shown this once)`,
        )
      }
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command given')
  }
}

if (values.help || positionals.length === 0) {
  console.log(HELP)
  process.exit(values.help ? 0 : 2)
}

let action: Action
try {
  action = parseCommand()
} catch (error) {
  console.error(`error: ${(error as Error).message}\n\n${HELP}`)
  process.exit(2)
}

const { pino } = await import('pino')
const { loadConfig } = await import('../src/config.ts')
const { openDataStore } = await import('../src/infra/db.ts')
const { migrateToLatest } = await import('../src/infra/migrate.ts')
const { openKeyring } = await import('../src/infra/data-key.ts')
const log = pino({ level: 'warn' }, pino.destination(2))
const config = loadConfig()
const store = await openDataStore({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, poolSize: 2 }).catch(
  (error: unknown) => {
    console.error(`error: ${(error as Error).message}`)
    process.exit(1)
  },
)
try {
  await migrateToLatest(store.db)
  await action(store.db, openKeyring(config, log), config)
} catch (error) {
  console.error(`error: ${(error as Error).message}`)
  process.exitCode = 1
} finally {
  await store.close()
}
