import { Type, type Static } from 'typebox'
import type { Db } from '../../infra/db.ts'
import type { SiteSettings } from './settings.ts'

/**
 * What a site says about its hosting beyond the assistant, kept in its settings under `hosting`:
 * a description, which AI crawlers its robots.txt lets in (all by default), and who runs it. The
 * dashboard writes the organization; the build (src/sites) reads all of it.
 */
const strict = { additionalProperties: false } as const
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength })

/**
 * Who runs a site, as its published pages say it in their JSON-LD (Organization, or
 * LocalBusiness once there is a street address) and footer; the site's name stands in for a
 * missing name.
 */
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
    // The Impressum (§ 5 DDG) names both when the business has them.
    register: Type.Optional(text(200)),
    vat_id: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{2}[0-9A-Z+*.]{2,13}$',
        description: 'A VAT identification number: country code and 2 to 13 characters',
      }),
    ),
    social: Type.Optional(
      Type.Array(Type.String({ minLength: 9, maxLength: 500, pattern: '^https://[^\\s/]+\\.[^\\s]*$' }), {
        maxItems: 10,
        uniqueItems: true,
        description: 'The business’s profiles on social networks (https addresses): linked in the footer and as sameAs',
      }),
    ),
  },
  strict,
)
export type Organization = Static<typeof Organization>

/** The AI crawlers robots.txt lets in, by purpose; a purpose not named is let in. */
export const AiCrawlers = Type.Object(
  { search: Type.Optional(Type.Boolean()), user_action: Type.Optional(Type.Boolean()), training: Type.Optional(Type.Boolean()) },
  strict,
)

/** The `hosting` part of a site's settings. */
export const Hosting = Type.Object(
  { description: Type.Optional(Type.String()), ai_crawlers: Type.Optional(AiCrawlers), organization: Type.Optional(Organization) },
  strict,
)
export type Hosting = Static<typeof Hosting>

/** A site's hosting settings; none stored reads as all defaults. */
export function hostingOf(settings: SiteSettings): Hosting {
  const hosting = settings.hosting
  return hosting && typeof hosting === 'object' ? hosting : {}
}

export function organizationOf(settings: SiteSettings): Organization {
  return hostingOf(settings).organization ?? {}
}

/**
 * Replaces the organization data of a site (checked against `Organization` by the caller). Run it
 * in the transaction that locked the site row (updateAccountSite), so no other change interleaves.
 */
export async function setSiteOrganization(db: Db, siteId: string, organization: Organization): Promise<void> {
  const row = await db.selectFrom('sites').select('settings').where('id', '=', siteId).executeTakeFirstOrThrow()
  const settings: SiteSettings = row.settings
  const next: SiteSettings = { ...settings, hosting: { ...hostingOf(settings), organization } }
  await db
    .updateTable('sites')
    .set({ settings: JSON.stringify(next), updated_at: new Date() })
    .where('id', '=', siteId)
    .execute()
}
