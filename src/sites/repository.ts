import type { Selectable } from 'kysely'
import { newId } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import type { SiteSettings } from './settings.ts'
import type { Locale, SitesTable, SiteStatus } from './tables.ts'

export type Site = Selectable<SitesTable>

/** The platform's own marketing site has a fixed id, so re-seeding with another BASE_URL moves it instead of duplicating it. */
export const PLATFORM_SITE_ID = 'site_platform'

/** The platform's own assistant: every capability on, booking through the demo page. */
export function platformSettings(baseUrl: string): SiteSettings {
  return {
    assistant: {
      enabled: true,
      persona: 'Ava',
      capabilities: { booking: true, booking_url: `${baseUrl}/demo`, lead: true, handoff: true },
    },
  }
}

/** Hostname of a URL in the form sites are keyed by: lower case, no port, no trailing dot. */
export function normaliseHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '')
}

/**
 * Creates the platform site on first start and keeps its hostname in step with BASE_URL; settings
 * an operator changed later are left alone. Safe to run from several instances at once.
 */
export async function seedPlatformSite(db: Db, baseUrl: string): Promise<void> {
  const hostname = normaliseHostname(new URL(baseUrl).hostname)
  await db
    .insertInto('sites')
    .values({ id: PLATFORM_SITE_ID, account_id: null, name: 'Web Presence', hostname, status: 'live', default_locale: 'en', settings: JSON.stringify(platformSettings(baseUrl)) })
    .onConflict((oc) => oc.column('id').doUpdateSet({ hostname, updated_at: new Date() }).where('sites.hostname', '<>', hostname))
    .execute()
}

export interface NewSite {
  name: string
  hostname: string
  accountId?: string | null
  status?: SiteStatus
  defaultLocale?: Locale
  settings?: SiteSettings
}

export async function createSite(db: Db, site: NewSite): Promise<Site> {
  return db
    .insertInto('sites')
    .values({
      id: newId('site'),
      account_id: site.accountId ?? null,
      name: site.name,
      hostname: normaliseHostname(site.hostname),
      status: site.status ?? 'live',
      default_locale: site.defaultLocale ?? 'en',
      settings: JSON.stringify(site.settings ?? {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function updateSiteSettings(db: Db, siteId: string, settings: SiteSettings): Promise<void> {
  await db.updateTable('sites').set({ settings: JSON.stringify(settings), updated_at: new Date() }).where('id', '=', siteId).execute()
}

export async function findSiteById(db: Db, id: string): Promise<Site | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findSiteByHostname(db: Db, hostname: string): Promise<Site | undefined> {
  return db.selectFrom('sites').selectAll().where('hostname', '=', normaliseHostname(hostname)).executeTakeFirst()
}

/** True when a live site on this hostname has its assistant switched on (the CORS allow-list). */
export async function assistantEnabledOn(db: Db, hostname: string): Promise<boolean> {
  const row = await db
    .selectFrom('sites')
    .select('settings')
    .where('hostname', '=', normaliseHostname(hostname))
    .where('status', '=', 'live')
    .executeTakeFirst()
  return row?.settings.assistant?.enabled === true
}
