import type { Plan } from './accounts/plans.ts'
import type { Locale } from './locales.ts'
import type { SiteSettings } from './sites/settings.ts'

/** The domain's types of the columns of src/infra/tables.ts that hold its values (see `DomainColumns` there). */
declare module '../infra/tables.ts' {
  interface DomainColumns {
    locale: Locale
    plan: Plan
    siteSettings: SiteSettings
  }
}
