import { accountById } from '../../domain/accounts/accounts.ts'
import { accountEmail } from '../../domain/accounts/members.ts'
import { listAuditRecords } from '../../domain/accounts/audit-log.ts'
import { getAccountBlock } from '../../domain/sites/blocks.ts'
import { listAccountLeads, type LeadStatus } from '../../domain/leads/leads.ts'
import { getAccountPage } from '../../domain/sites/pages.ts'
import { PLAN_ACCESS, WINDOW_SECONDS } from '../../domain/accounts/quota.ts'
import { getAccountSite, listAccountSites } from '../../domain/sites/sites.ts'
import { listEndpoints } from '../../domain/webhooks/endpoints.ts'
import { errors } from '../../errors.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { plausibleId } from '../inputs.ts'
import { connection, windowOf } from '../paging.ts'
import { auditNode, blockNode, endpointNode, leadNode, pageNode, siteNode, themeCatalogNode } from '../views.ts'
import { themeCatalog } from '../../domain/sites/themes.ts'
import type { Locale } from '../../domain/locales.ts'
import { templateCatalogue } from '../../domain/sites/templates/catalogue.ts'

type Paged = { first?: number | null; after?: string | null }

/** The 404 of /v1 in GraphQL's terms: another account's id looks the same as none. */
export function notFound(what: string): Error {
  return new errors.notFound(`${what} not found`)
}

/** The value a change found, or NOT_FOUND (thrown inside the change's transaction, so nothing of it is kept). */
export function orNotFound<T>(value: T | undefined | false, what: string): T {
  if (value === undefined || value === false) throw notFound(what)
  return value
}

/** The value, or NOT_FOUND for an id the account cannot see (or that cannot be an id at all). */
export async function found<T>(id: string, what: string, read: () => Promise<T | undefined>): Promise<T> {
  const value = plausibleId(id) ? await read() : undefined
  if (value === undefined) throw notFound(what)
  return value
}

export const queryResolvers = {
  async viewer(_root: unknown, _args: unknown, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.account)
    const { db } = context.app
    const [account, email] = await Promise.all([
      accountById(db, principal.accountId),
      accountEmail(db, context.app.keyring, principal.accountId),
    ])
    if (!account) throw notFound('Account')
    const { quota } = principal
    return {
      id: account.id,
      email,
      plan: account.plan,
      apiAccess: PLAN_ACCESS[account.plan].access,
      quota: { requestsPerHour: quota.limit, windowSeconds: WINDOW_SECONDS, override: account.quota_override !== null },
      usage: {
        used: quota.used,
        remaining: Math.max(0, quota.limit - quota.used),
        windowStart: new Date(quota.resetAt.getTime() - WINDOW_SECONDS * 1000).toISOString(),
        resetsAt: quota.resetAt.toISOString(),
      },
      createdAt: account.created_at.toISOString(),
    }
  },

  themes(_root: unknown, _args: unknown, context: GraphqlContext) {
    allowed(context, ACCESS.account)
    return themeCatalogNode(themeCatalog())
  },
  templates(_root: unknown, args: { locale?: Locale | null }, context: GraphqlContext) {
    allowed(context, ACCESS.account)
    return templateCatalogue(args.locale ?? 'en').data.map(({ business_type, ...template }) => ({
      ...template,
      businessType: business_type,
    }))
  },

  async sites(_root: unknown, args: Paged, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.readSites)
    const window = windowOf(args)
    const { items, total } = await listAccountSites(context.app.db, principal.accountId, window)
    return connection(
      items.map((site) => siteNode(site, context.app.config)),
      total,
      window.offset,
    )
  },

  async site(_root: unknown, args: { id: string }, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.readSites)
    return siteNode(await found(args.id, 'Site', () => getAccountSite(context.app.db, principal.accountId, args.id)), context.app.config)
  },

  async page(_root: unknown, args: { id: string }, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.readSites)
    return pageNode(await found(args.id, 'Page', () => getAccountPage(context.app.db, principal.accountId, args.id)))
  },

  async block(_root: unknown, args: { id: string }, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.readSites)
    return blockNode(await found(args.id, 'Block', () => getAccountBlock(context.app.db, principal.accountId, args.id)))
  },

  async leads(_root: unknown, args: Paged & { siteId?: string | null; status?: LeadStatus | null }, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.readLeads)
    const window = windowOf(args)
    const siteId = args.siteId ?? undefined
    if (siteId !== undefined && !plausibleId(siteId)) return connection([], 0, window.offset)
    const filter = { siteId, status: args.status ?? undefined }
    const { items, total } = await listAccountLeads(context.app.db, context.app.keyring, principal.accountId, filter, window)
    return connection(items.map(leadNode), total, window.offset)
  },

  async webhookEndpoints(_root: unknown, args: Paged, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.webhooks)
    const window = windowOf(args)
    const { rows, total } = await listEndpoints(context.app.db, principal.accountId, window)
    return connection(rows.map(endpointNode), total, window.offset)
  },

  async auditLog(_root: unknown, args: Paged & { since?: Date | null; until?: Date | null }, context: GraphqlContext) {
    const principal = allowed(context, ACCESS.auditLog)
    const window = windowOf(args)
    const filter = { ...(args.since ? { since: args.since } : {}), ...(args.until ? { until: args.until } : {}) }
    const { rows, total } = await listAuditRecords(context.app.db, principal.accountId, filter, window)
    return connection(rows.map(auditNode), total, window.offset)
  },
}
