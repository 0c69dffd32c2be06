import { Type } from 'typebox'
import { buildView, queueBuild } from '../../domain/sites/builds.ts'
import { addDomain, domainView, parseHostname } from '../../domain/sites/domains.ts'
import {
  createAccountSite,
  getAccountSite,
  listAccountSites,
  prepareDraft,
  updateAccountSite,
  type SiteRecord,
} from '../../domain/sites/sites.ts'
import { templateCatalogue, TemplateId, TemplateList } from '../../domain/sites/templates/catalogue.ts'
import { Business } from '../../domain/sites/templates/draft.ts'
import { copyWriterOf } from '../../domain/sites/templates/llm-copy.ts'
import { serviceHostnames, slugFromInput } from '../../domain/sites/subdomains.ts'
import { errors } from '../../errors.ts'
import { accountTool, type AccountCall } from '../account.ts'
import { Build as BuildSchema, Domain as DomainSchema, Locale, previewUrl, Site as SiteSchema, siteView } from '../../domain/sites/views.ts'
import { ListOf } from '../views.ts'
import { listOf, pageOf, PagingArguments } from './paging.ts'
import { themeCatalog, ThemeCatalog, ThemeInput } from '../../domain/sites/themes.ts'
import { Navigation } from '../../domain/sites/navigation.ts'
import { SitePatch } from '../../domain/sites/content-inputs.ts'
import { publicStats, siteStats, statsSpan } from '../../domain/stats/report.ts'
import { SiteStats } from '../../domain/stats/schema.ts'

const SiteId = Type.String({ minLength: 1, maxLength: 100, description: 'The site id (site_…)' })
const strict = { additionalProperties: false } as const
const AssistantPatch = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    persona: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    booking_url: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: '^https://' }), Type.Null()])),
    lead: Type.Optional(Type.Boolean()),
    handoff: Type.Optional(Type.Boolean()),
  },
  { ...strict, description: 'The sales assistant of the site' },
)
const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

/** The account's site, or the registry's 404 (another account's site is not found, never forbidden). */
export async function ownSite(call: AccountCall, siteId: string): Promise<SiteRecord> {
  const site = await getAccountSite(call.db, call.accountId, siteId)
  if (!site) throw new errors.notFound(`No site ${siteId} in this account`)
  return site
}

const view = (call: AccountCall, site: SiteRecord) => siteView(site, call.app.config)

export const siteTools = [
  accountTool({
    name: 'list_sites',
    title: 'List sites',
    description: 'The sites of the account, oldest first, with their status (draft, live, offline), domain, locales and preview address.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object(PagingArguments, strict),
    output: ListOf(SiteSchema),
    run: async (args, call) => {
      const paging = pageOf(args)
      const { items, total } = await listAccountSites(call.db, call.accountId, paging)
      return listOf(
        items.map((site) => view(call, site)),
        total,
        paging,
      )
    },
  }),
  accountTool({
    name: 'list_themes',
    title: 'List themes',
    description:
      'The theme presets (colours, fonts, corners), font pairs and corner styles a site may use; set one with update_site `theme`. ' +
      'A brand colour too light for white text is darkened for buttons and links, so text always keeps WCAG AA contrast.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({}, strict),
    output: ThemeCatalog,
    run: async () => themeCatalog(),
  }),
  accountTool({
    name: 'list_templates',
    title: 'List templates',
    description:
      'The templates per business type (bakery, restaurant, salon, trades, consultant, shop, health, club), each with its theme preset and pages, ' +
      'in the language asked (en unless given). create_site with template and business makes a first draft from one.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({ locale: Type.Optional(Locale) }, strict),
    output: TemplateList,
    run: async (args) => templateCatalogue(args.locale ?? 'en'),
  }),
  accountTool({
    name: 'get_site_stats',
    title: 'Get visitor statistics of a site',
    description:
      'Visitors, page views and conversions (contact-form messages and assistant leads) of a site per day, its most viewed pages, ' +
      'referrers and devices, counted without cookies. from and to are UTC days (YYYY-MM-DD), both included; by default the last 30 days.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object(
      {
        site_id: SiteId,
        from: Type.Optional(Type.String({ description: 'First day, YYYY-MM-DD' })),
        to: Type.Optional(Type.String({ description: 'Last day, YYYY-MM-DD' })),
      },
      strict,
    ),
    output: SiteStats,
    run: async (args, call) => {
      const site = await ownSite(call, args.site_id)
      const span = statsSpan(args)
      return publicStats(await siteStats(call.db, site.id, span.from, span.to))
    },
  }),
  accountTool({
    name: 'get_site',
    title: 'Get a site',
    description: 'One site of the account by id.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({ site_id: SiteId }, strict),
    output: SiteSchema,
    run: async (args, call) => view(call, await ownSite(call, args.site_id)),
  }),
  accountTool({
    name: 'create_site',
    title: 'Create a site',
    description:
      'Creates a draft site. With template (list_templates) and business facts (type, name, city, description, phone, email, address, opening_hours) ' +
      'it starts with five pages filled with those facts and nothing else; otherwise add pages (create_page) and blocks (add_block). ' +
      'Then publish_site to build it and put it live.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        default_locale: Type.Optional(Locale),
        locales: Type.Optional(
          Type.Array(Locale, { minItems: 1, maxItems: 3, description: 'The languages of the site; the default among them' }),
        ),
        assistant: Type.Optional(AssistantPatch),
        theme: Type.Optional(ThemeInput),
        navigation: Type.Optional(Navigation),
        template: Type.Optional(TemplateId),
        business: Type.Optional(Business),
      },
      strict,
    ),
    output: SiteSchema,
    run: async (args, call) => {
      const { app } = call
      const draft = await prepareDraft(
        args,
        copyWriterOf(app.config, (err) => app.log.warn({ err }, 'the model did not write the draft')),
      )
      return view(call, await createAccountSite(call.db, call.accountId, args, draft))
    },
  }),
  accountTool({
    name: 'update_site',
    title: 'Change a site',
    description:
      "Changes a site's name, subdomain, locales, assistant, theme (see list_themes), logo (logo_media_id: an image of the media library, null removes it) or menu (navigation: pages by path in order, hidden pages, children one level deep, links with url and label); status offline takes a live site down, live brings it back (it needs a succeeded build).",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      {
        site_id: SiteId,
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        subdomain: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 253,
            description: 'A new slug, alone or as the full host; served at once, the old subdomain stops answering',
          }),
        ),
        status: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('offline')])),
        default_locale: Type.Optional(Locale),
        locales: Type.Optional(Type.Array(Locale, { minItems: 1, maxItems: 3 })),
        assistant: Type.Optional(AssistantPatch),
        theme: Type.Optional(ThemeInput),
        logo_media_id: SitePatch.properties.logo_media_id,
        navigation: Type.Optional(Navigation),
      },
      strict,
    ),
    output: SiteSchema,
    run: async ({ site_id, subdomain, ...patch }, call) => {
      const slug = subdomain === undefined ? {} : { slug: slugFromInput(subdomain, call.app.config.SITES_DOMAIN) }
      const site = await updateAccountSite(call.db, call.accountId, site_id, { ...patch, ...slug })
      if (!site) throw new errors.notFound(`No site ${site_id} in this account`)
      return view(call, site)
    },
  }),
  accountTool({
    name: 'publish_site',
    title: 'Publish a site',
    description:
      'Builds every page of the site and puts the build live when it succeeds (asynchronously: the answer is the queued build). ' +
      'While a build is queued or running, that build is answered. The preview shows the latest build.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object({ site_id: SiteId }, strict),
    output: Type.Object(
      {
        build: BuildSchema,
        created: Type.Boolean({ description: 'False when a build already queued or running is answered' }),
        preview_url: Type.String(),
      },
      strict,
    ),
    run: async (args, call) => {
      const site = await ownSite(call, args.site_id)
      const { build, created } = await queueBuild(call.db, site.id)
      return { build: buildView(build), created, preview_url: previewUrl(call.app.config.BASE_URL, site.id) }
    },
  }),
  accountTool({
    name: 'add_domain',
    title: 'Add a domain',
    description:
      "Adds a hostname to a site as a pending domain. It becomes active once a DNS TXT record with the answered verification name and value exists and the domain is verified; the site's first domain is its primary.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      { site_id: SiteId, hostname: Type.String({ minLength: 1, maxLength: 253 }), primary: Type.Optional(Type.Boolean()) },
      strict,
    ),
    output: DomainSchema,
    run: async (args, call) => {
      const site = await ownSite(call, args.site_id)
      return domainView(await addDomain(call.db, site.id, parseHostname(args.hostname, serviceHostnames(call.app.config)), args.primary))
    },
  }),
]
