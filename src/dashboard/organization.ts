import { Type, type Static } from 'typebox'
import type { Db } from '../infra/db.ts'
import type { SiteSettings } from '../domain/sites/settings.ts'

/**
 * Who runs a site, as its published pages say it in their JSON-LD (Organization, or
 * LocalBusiness once there is a street address) and footer. Kept in the site's settings under
 * `hosting.organization`, where the build reads it; the site's name stands in for a missing name.
 */
const strict = { additionalProperties: false } as const
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength })

export const Organization = Type.Object(
  {
    name: Type.Optional(text(200)),
    email: Type.Optional(Type.String({ maxLength: 254, format: 'email' })),
    telephone: Type.Optional(Type.String({ minLength: 3, maxLength: 40, pattern: '^\\+?[0-9][0-9 ()./-]*[0-9]$' })),
    // The logo is shown as the pages' og:image, which must be an absolute address.
    logo: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: '^https://' })),
    address: Type.Optional(
      Type.Object({ street: text(200), postal_code: Type.Optional(text(20)), locality: text(100), country: text(100) }, strict),
    ),
  },
  strict,
)
export type Organization = Static<typeof Organization>

export function organizationOf(settings: SiteSettings): Organization {
  const hosting = (settings as { hosting?: { organization?: Organization } }).hosting
  return hosting?.organization ?? {}
}

/**
 * Replaces the organization data of a site (checked against `Organization` by the caller). Run it
 * in the transaction that locked the site row (updateAccountSite), so no other change interleaves.
 */
export async function setSiteOrganization(db: Db, siteId: string, organization: Organization): Promise<void> {
  const row = await db.selectFrom('sites').select('settings').where('id', '=', siteId).executeTakeFirstOrThrow()
  const settings = row.settings as SiteSettings & { hosting?: Record<string, unknown> }
  const next = { ...settings, hosting: { ...settings.hosting, organization } }
  await db
    .updateTable('sites')
    .set({ settings: JSON.stringify(next), updated_at: new Date() })
    .where('id', '=', siteId)
    .execute()
}
