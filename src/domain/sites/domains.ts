import { isIP } from 'node:net'
import { domainToASCII } from 'node:url'
import type { Selectable } from 'kysely'
import { newId, randomToken } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob, type NamedJob } from '../../infra/jobs.ts'
import type { DomainsTable } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import { challengeName, lookUpChallenge, type TxtLookup } from './dns-verify.ts'
import { uniqueViolation, withTransaction } from '../transaction.ts'
import { assertOwnDomainAllowed } from '../accounts/limits.ts'
import type { Paging } from '../paging.ts'

export type Domain = Selectable<DomainsTable>

/** The platform site's own domain has a fixed id, so seeding moves it rather than adding another. */
export const PLATFORM_DOMAIN_ID = 'dom_platform'

/** Job that looks up a domain's TXT challenge; payload `{domain_id}`. */
export const VERIFY_JOB = 'domain.verify'

/** Hostname in the form domains are keyed by: lower case, no trailing dot. */
export function normaliseHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '')
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * A customer's hostname, checked and normalised (IDNs to their ASCII form). Refused: IP addresses,
 * single labels, ports, wildcards, bad labels, localhost, and the service's own hostnames and
 * their sub-domains (those never serve a customer's site).
 */
export function parseHostname(input: string, ownHostnames: readonly string[]): string {
  const trimmed = normaliseHostname(input.trim())
  const bare = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed
  if (isIP(bare) !== 0) throw new errors.invalidHostname('An IP address cannot be a domain; use a hostname')
  const ascii = domainToASCII(trimmed)
  const labels = ascii.split('.')
  if (
    ascii === '' ||
    ascii.length > 253 ||
    labels.length < 2 ||
    !labels.every((l) => LABEL.test(l)) ||
    /^[0-9]+$/.test(labels.at(-1) ?? '')
  ) {
    throw new errors.invalidHostname(`'${input.length > 64 ? `${input.slice(0, 64)}…` : input}' is not a valid hostname`)
  }
  const own = ['localhost', ...ownHostnames.map(normaliseHostname)]
  if (own.some((h) => ascii === h || ascii.endsWith(`.${h}`)))
    throw new errors.invalidHostname('This hostname belongs to the service itself')
  return ascii
}

export interface DomainView {
  id: string
  site_id: string
  hostname: string
  status: Domain['status']
  primary: boolean
  verification: { type: 'TXT'; name: string; value: string }
  verified_at: string | null
  failure_reason: { code: NonNullable<Domain['failure_code']>; detail: string } | null
}

export function domainView(domain: Domain): DomainView {
  return {
    id: domain.id,
    site_id: domain.site_id,
    hostname: domain.hostname,
    status: domain.status,
    primary: domain.primary,
    verification: { type: 'TXT', name: challengeName(domain.hostname), value: domain.verification_value },
    verified_at: domain.verified_at?.toISOString() ?? null,
    failure_reason:
      domain.status === 'failed' && domain.failure_code ? { code: domain.failure_code, detail: domain.failure_detail ?? '' } : null,
  }
}

const takenElsewhere = (hostname: string) => new errors.hostnameTaken(`${hostname} is already active on another site`)

/** Adds a hostname as an active primary domain at once (the platform site, tests). */
export async function insertActiveDomain(db: Db, siteId: string, hostname: string): Promise<Domain> {
  try {
    return await db
      .insertInto('domains')
      .values({
        id: newId('dom'),
        site_id: siteId,
        hostname: normaliseHostname(hostname),
        status: 'active',
        primary: true,
        verification_value: verificationValue(),
        verified_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow()
  } catch (error) {
    if (uniqueViolation(error) === 'domains_active_hostname') throw takenElsewhere(hostname)
    throw error
  }
}

function verificationValue(): string {
  return `wps-verify=${randomToken(24)}`
}

function accountDomains(db: Db, accountId: string) {
  return db
    .selectFrom('domains')
    .innerJoin('sites', 'sites.id', 'domains.site_id')
    .selectAll('domains')
    .where('sites.account_id', '=', accountId)
}

export async function listSiteDomains(db: Db, siteId: string, page: Paging): Promise<{ items: Domain[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('domains')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('domains')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

export async function getAccountDomain(db: Db, accountId: string, domainId: string): Promise<Domain | undefined> {
  return accountDomains(db, accountId).where('domains.id', '=', domainId).executeTakeFirst()
}

/** Locks the site's domains (through the site row), so primary flags and positions change one writer at a time. */
async function lockSite(trx: Db, siteId: string): Promise<void> {
  await trx.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().executeTakeFirst()
}

/**
 * Adds a pending domain to a site. The site's first domain is its primary; `primary: true` moves
 * the flag. A hostname already on this site, or active on another, is 409 hostname_taken. Own
 * domains come with the plan (from lite, as many as it includes with the extra_domain add-on).
 */
export async function addDomain(db: Db, siteId: string, hostname: string, primary?: boolean): Promise<Domain> {
  return withTransaction(db, async (trx) => {
    await lockSite(trx, siteId)
    await assertOwnDomainAllowed(trx, siteId)
    const existing = await trx
      .selectFrom('domains')
      .select(['site_id', 'status'])
      .where('hostname', '=', hostname)
      .where((eb) => eb.or([eb('site_id', '=', siteId), eb('status', '=', 'active')]))
      .executeTakeFirst()
    if (existing?.site_id === siteId) throw new errors.hostnameTaken(`${hostname} is already a domain of this site`)
    if (existing) throw takenElsewhere(hostname)
    const hasPrimary = await trx
      .selectFrom('domains')
      .select('id')
      .where('site_id', '=', siteId)
      .where('primary', '=', true)
      .executeTakeFirst()
    const makePrimary = primary ?? hasPrimary === undefined
    if (makePrimary && hasPrimary) await trx.updateTable('domains').set({ primary: false }).where('id', '=', hasPrimary.id).execute()
    try {
      return await trx
        .insertInto('domains')
        .values({ id: newId('dom'), site_id: siteId, hostname, primary: makePrimary, verification_value: verificationValue() })
        .returningAll()
        .executeTakeFirstOrThrow()
    } catch (error) {
      if (uniqueViolation(error) === 'domains_site_hostname') throw new errors.hostnameTaken(`${hostname} is already a domain of this site`)
      throw error
    }
  })
}

/** Removes a domain; when it was the primary, the site's oldest remaining domain (active first) takes the flag. */
export async function deleteDomain(db: Db, domain: Domain): Promise<void> {
  await withTransaction(db, async (trx) => {
    await lockSite(trx, domain.site_id)
    const gone = await trx.deleteFrom('domains').where('id', '=', domain.id).returning('primary').executeTakeFirst()
    if (!gone?.primary) return
    const next = await trx
      .selectFrom('domains')
      .select('id')
      .where('site_id', '=', domain.site_id)
      .orderBy((eb) => eb.case().when('status', '=', 'active').then(0).else(1).end())
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst()
    if (next) await trx.updateTable('domains').set({ primary: true }).where('id', '=', next.id).execute()
  })
}

/**
 * Starts a check: a failed domain goes back to pending and the job `domain.verify` is queued with
 * it; an active one stays as it is (no job needed). Asking again before the verdict queues
 * nothing more. The job's key names the last verdict (`checked_at`): a request made just after a
 * verdict, while the job that gave it is still finishing, queues a check of its own instead of
 * being taken for the one finishing (which would leave the domain pending).
 */
export async function requestVerification(db: Db, domain: Domain): Promise<Domain> {
  if (domain.status === 'active') return domain
  return withTransaction(db, async (trx) => {
    const pending = await trx
      .updateTable('domains')
      .set({ status: 'pending', failure_code: null, failure_detail: null })
      .where('id', '=', domain.id)
      .where('status', '<>', 'active')
      .returningAll()
      .executeTakeFirst()
    const current = pending ?? domain
    const lastVerdict = current.checked_at?.toISOString() ?? 'none'
    await enqueueJob(trx, VERIFY_JOB, { domain_id: domain.id }, { uniqueKey: `${domain.id}@${lastVerdict}`, maxAttempts: 1 })
    return current
  })
}

/**
 * Looks up the challenge and records the outcome: active when the TXT record holds the value and
 * no other site has the hostname active meanwhile, else failed with the reason (no record, another
 * value, a failed lookup, the hostname taken). Answers the domain as stored.
 */
export async function verifyDomain(db: Db, resolver: TxtLookup, domainId: string): Promise<Domain | undefined> {
  const domain = await db.selectFrom('domains').selectAll().where('id', '=', domainId).executeTakeFirst()
  if (!domain || domain.status === 'active') return domain
  const outcome = await lookUpChallenge(resolver, domain.hostname, domain.verification_value)
  const now = new Date()
  const fail = (code: NonNullable<Domain['failure_code']>, detail: string) =>
    db
      .updateTable('domains')
      .set({ status: 'failed', checked_at: now, failure_code: code, failure_detail: detail })
      .where('id', '=', domainId)
      .where('status', '<>', 'active')
      .returningAll()
      .executeTakeFirst()
  if (!outcome.proven) return fail(outcome.code, outcome.detail)
  try {
    return await db
      .updateTable('domains')
      .set({ status: 'active', verified_at: now, checked_at: now, failure_code: null, failure_detail: null })
      .where('id', '=', domainId)
      .returningAll()
      .executeTakeFirst()
  } catch (error) {
    if (uniqueViolation(error) === 'domains_active_hostname')
      return fail('hostname_taken', `${domain.hostname} is already active on another site`)
    throw error
  }
}

/** The job that looks a domain's TXT challenge up once (`requestVerification` queues it). */
export function domainVerifyJob(db: Db, resolver: TxtLookup): NamedJob<{ domain_id: string }> {
  return {
    name: VERIFY_JOB,
    definition: { maxAttempts: 1, handler: async ({ domain_id: domainId }) => void (await verifyDomain(db, resolver, domainId)) },
  }
}
