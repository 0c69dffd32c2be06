import type { ColumnType } from 'kysely'
import type { CreatedAt, Timestamp } from '../infra/tables.ts'
import type { SiteSettings } from './settings.ts'

export type SiteStatus = 'draft' | 'live' | 'suspended'
export type Locale = 'de' | 'en' | 'fr'

export interface SitesTable {
  id: string
  account_id: string | null
  name: string
  hostname: string
  status: ColumnType<SiteStatus, SiteStatus | undefined, SiteStatus>
  default_locale: ColumnType<Locale, Locale | undefined, Locale>
  settings: ColumnType<SiteSettings, string | undefined, string>
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface LeadsTable {
  id: string
  site_id: string
  session_id: string | null
  email_sealed: string
  name_sealed: string | null
  note_sealed: string | null
  dedupe_key: string
  consent_version: string
  consent_digest: string
  consent_locale: Locale
  consent_accepted_at: Timestamp
  source: string
  created_at: CreatedAt
}

/** Tables of the sites room; src/infra/tables.ts composes them into the Database type. */
export interface SitesTables {
  sites: SitesTable
  leads: LeadsTable
}
