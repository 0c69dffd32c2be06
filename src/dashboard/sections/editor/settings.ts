import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { entitlementsOf } from '../../../domain/accounts/add-ons.ts'
import { SitePatch } from '../../../domain/sites/content-inputs.ts'
import { isLocale, LOCALES, type Locale } from '../../../domain/locales.ts'
import { assistantView } from '../../../domain/sites/settings.ts'
import { Organization, organizationOf, setSiteOrganization, type Organization as OrganizationData } from '../../../domain/sites/hosting.ts'
import { updateAccountSite, type SiteRecord } from '../../../domain/sites/sites.ts'
import { RESERVED_SLUGS, SLUG_PATTERN, slugFromInput } from '../../../domain/sites/subdomains.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { crumbs, LOCALE_NAMES, localeOptions, ownSite, SiteParams, viewOfSite } from './context.ts'
import {
  checks,
  choice,
  field,
  fieldErrors,
  FormBodySchema,
  formState,
  hidden,
  issuesOf,
  labelsOf,
  listOf,
  problems,
  refusalOf,
  refused,
  refusedState,
  specsOf,
  textOf,
  toggle,
  versionOf,
  type FieldSpec,
  type FormBody,
  type FormState,
} from './form.ts'
import { noticeOf } from './notices.ts'
import { mayChange, viewOnlyNote } from '../../permissions.ts'

const SITE: FieldSpec[] = [
  { name: 'name', label: 'Name of your site', maxLength: 200 },
  {
    name: 'subdomain',
    label: 'Address',
    maxLength: 63,
    format: 'Use lower-case letters, digits and hyphens only (no spaces or dots), such as my-bakery.',
  },
]
const LOCALES_FIELD: FieldSpec = {
  name: 'locales',
  label: 'Languages of your site',
  hint: 'To drop a language, delete its pages first.',
  format: 'Choose at least one language.',
}
const DEFAULT_LOCALE: FieldSpec = { name: 'default_locale', label: 'Main language' }
const ORGANIZATION: FieldSpec[] = [
  {
    name: 'organization.name',
    label: 'Business name',
    hint: 'When it differs from the site’s name.',
    optional: true,
    maxLength: 200,
    autocomplete: 'organization',
  },
  {
    name: 'organization.email',
    label: 'Email',
    kind: 'email',
    optional: true,
    maxLength: 254,
    autocomplete: 'email',
    format: 'Write an email address such as hello@your-business.com.',
  },
  {
    name: 'organization.telephone',
    label: 'Phone',
    kind: 'tel',
    optional: true,
    maxLength: 40,
    autocomplete: 'tel',
    format: 'Write the number with digits, spaces and an optional + in front, such as +49 30 1234567.',
  },
  {
    name: 'organization.logo',
    label: 'Logo address',
    kind: 'link',
    optional: true,
    maxLength: 2000,
    hint: 'The web address of your logo picture, starting with https://.',
    format: 'Use an address that starts with https://.',
  },
  { name: 'organization.address.street', label: 'Street and number', optional: true, maxLength: 200, autocomplete: 'address-line1' },
  { name: 'organization.address.postal_code', label: 'Postal code', optional: true, maxLength: 20, autocomplete: 'postal-code' },
  { name: 'organization.address.locality', label: 'Town or city', optional: true, maxLength: 100, autocomplete: 'address-level2' },
  { name: 'organization.address.country', label: 'Country', optional: true, maxLength: 100, autocomplete: 'country-name' },
]
const ASSISTANT: FieldSpec[] = [
  { name: 'assistant.enabled', label: 'Show the sales assistant on my site' },
  {
    name: 'assistant.persona',
    label: 'The assistant’s name',
    optional: true,
    maxLength: 60,
    hint: 'How it introduces itself, such as Ava.',
  },
  {
    name: 'assistant.booking_url',
    label: 'Booking page',
    kind: 'link',
    optional: true,
    maxLength: 500,
    hint: 'Where the assistant sends visitors to book, starting with https://.',
    format: 'Use a web address that starts with https:// or http://.',
  },
  { name: 'assistant.lead', label: 'Let the assistant take visitors’ contact details (with their consent)' },
  { name: 'assistant.handoff', label: 'Let visitors ask for a person (answered under Conversations)' },
]
const SUBDOMAIN_FORMAT = SITE[1]!.format!
const SLUG = new RegExp(SLUG_PATTERN)

/**
 * What is wrong with a typed address, checked with the other fields so every problem shows at once
 * (the domain's own check, `slugFromInput`, stops at the first): its length named before its
 * characters, and the service's reserved names said to be reserved rather than taken.
 */
function subdomainProblem(typed: string, sitesDomain: string): string | undefined {
  const value = typed.trim().toLowerCase().replace(/\.$/, '')
  const label = value.endsWith(`.${sitesDomain}`) ? value.slice(0, -sitesDomain.length - 1) : value
  if (label === '') return 'Fill this in.'
  if (label.length > 63) return `Use at most 63 characters; this address has ${label.length}.`
  if (!SLUG.test(label)) return SUBDOMAIN_FORMAT
  if (RESERVED_SLUGS.has(label)) return `The address “${label}” is kept for the service itself, so no site can have it. Choose another.`
  return undefined
}

const TOGGLES = new Set(['assistant.enabled', 'assistant.lead', 'assistant.handoff'])
const specs = specsOf(SITE, [LOCALES_FIELD, DEFAULT_LOCALE], ORGANIZATION, ASSISTANT)
const labels = { ...labelsOf(specs), subdomain: 'Address' }

const ADDRESS_PARTS = ['street', 'postal_code', 'locality', 'country'] as const

function valuesOf(site: SiteRecord): Record<string, string> {
  const org = organizationOf(site.settings)
  const assistant = assistantView(site.settings)
  return {
    name: site.name,
    subdomain: site.slug,
    locales: site.locales.join(','),
    default_locale: site.default_locale,
    'organization.name': org.name ?? '',
    'organization.email': org.email ?? '',
    'organization.telephone': org.telephone ?? '',
    'organization.logo': org.logo ?? '',
    ...Object.fromEntries(ADDRESS_PARTS.map((part) => [`organization.address.${part}`, org.address?.[part] ?? ''])),
    'assistant.enabled': assistant.enabled ? 'on' : '',
    'assistant.persona': assistant.persona ?? '',
    'assistant.booking_url': assistant.booking_url ?? '',
    'assistant.lead': assistant.lead ? 'on' : '',
    'assistant.handoff': assistant.handoff ? 'on' : '',
  }
}

function valuesFrom(body: FormBody): Record<string, string> {
  const values: Record<string, string> = {}
  for (const spec of [...SITE, DEFAULT_LOCALE, ...ORGANIZATION]) values[spec.name] = textOf(body, spec.name)
  for (const spec of ASSISTANT)
    values[spec.name] = !TOGGLES.has(spec.name) ? textOf(body, spec.name) : textOf(body, spec.name) === 'on' ? 'on' : ''
  values['locales'] = listOf(body, 'locales').join(',')
  return values
}

/** The organization as it is stored: only what was filled in; the address whole once any part of it is. */
function organizationFrom(values: Record<string, string>): OrganizationData {
  const text = (name: string) => (values[name] ?? '').trim()
  const org: Record<string, unknown> = {}
  for (const key of ['name', 'email', 'telephone', 'logo']) if (text(`organization.${key}`)) org[key] = text(`organization.${key}`)
  if (ADDRESS_PARTS.some((part) => text(`organization.address.${part}`))) {
    const address: Record<string, string> = {
      street: text('organization.address.street'),
      locality: text('organization.address.locality'),
      country: text('organization.address.country'),
    }
    if (text('organization.address.postal_code')) address['postal_code'] = text('organization.address.postal_code')
    org['address'] = address
  }
  return org as OrganizationData
}

/** `version`: the one the person's form had, kept on a refusal so a later save still notices another tab's change. */
function render(
  app: FastifyInstance,
  reply: FastifyReply,
  site: SiteRecord,
  shown: FormState,
  assistant: boolean,
  notice: { notice?: string } = {},
  version = versionOf(viewOfSite(app, site)),
  was = versionOf(valuesOf(site)),
) {
  const may = mayChange(reply.request.person)
  const state = may ? shown : { ...shown, readOnly: true }
  const body = html`${crumbs([[site.name, `/app/sites/${site.id}`], ['Settings']])}
${may ? '' : viewOnlyNote()}
${problems(state, labels)}
${may ? html`<form method="post" action="/app/sites/${site.id}/settings" novalidate>${hidden(reply.formToken(), version)}<input type="hidden" name="_was" value="${was}">` : html`<div>`}
<section class="card" aria-labelledby="site-h"><h2 id="site-h">Your site</h2>
${field(state, SITE[0]!)}
${field(state, { ...SITE[1]!, hint: `Your site is at this name followed by .${app.config.SITES_DOMAIN}. When you change it, the old address stops working at once.` })}
${checks(state, LOCALES_FIELD, localeOptions(LOCALES))}
${choice(state, DEFAULT_LOCALE, localeOptions(LOCALES))}
</section>
<section class="card" aria-labelledby="org-h"><h2 id="org-h">Your business</h2>
<p class="hint">Search engines and AI assistants read this from your pages. With a street address your site says it is a local business.</p>
${ORGANIZATION.map((spec) => field(state, spec))}
</section>
<section class="card" aria-labelledby="assistant-h"><h2 id="assistant-h">Sales assistant</h2>
${
  assistant
    ? ASSISTANT.map((spec) => (TOGGLES.has(spec.name) ? toggle(state, spec) : field(state, spec)))
    : html`<p>The sales assistant answers your visitors’ questions on your site, day and night. It comes with the AI sales assistant add-on, from plan plus: <a href="/app/billing">change your plan</a> or <a href="/#plans">compare the plans</a>.</p>`
}
</section>
${
  may
    ? html`<button type="submit">Save settings</button>
</form>`
    : html`</div>`
}`
  return reply.page(`Settings of ${site.name}`, 'sites', body, notice)
}

/**
 * A site's settings: name, address (its platform subdomain), languages, the business behind it
 * (for search engines), and the sales assistant. Saved through the same domain functions and
 * body schema as PATCH /v1/sites/{id}; the form carries the site's ETag as its version.
 */
export default async function settingsScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  /** Whether the account's sites may have the sales assistant (the add-on, on a plan that offers it). */
  const assistantIncluded = async (accountId: string) => (await entitlementsOf(app.db, accountId))?.assistant === true

  routes.get(
    '/sites/:id/settings',
    { config: { operation: 'dashboard.sites.settings' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      return render(app, reply, site, formState(valuesOf(site)), await assistantIncluded(site.account_id!), noticeOf(request))
    },
  )

  routes.post(
    '/sites/:id/settings',
    {
      config: { operation: 'dashboard.sites.update' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const accountId = request.person.accountId
      const site = await ownSite(app, accountId, request.params.id)
      const values = valuesFrom(request.body)
      const locales = listOf(request.body, 'locales')
      const text = (name: string) => (values[name] ?? '').trim()
      const assistant = await assistantIncluded(accountId)
      const change = {
        name: text('name'),
        subdomain: text('subdomain'),
        default_locale: values['default_locale'] as Locale,
        locales: locales as Locale[],
        // Without the add-on the form has no assistant fields: the site's assistant settings stay as they are.
        ...(assistant
          ? {
              assistant: {
                enabled: values['assistant.enabled'] === 'on',
                persona: text('assistant.persona') || null,
                booking_url: text('assistant.booking_url') || null,
                lead: values['assistant.lead'] === 'on',
                handoff: values['assistant.handoff'] === 'on',
              },
            }
          : {}),
      }
      const organization = organizationFrom(values)
      const wrong = {
        ...fieldErrors(issuesOf(SitePatch, change), specs),
        ...fieldErrors(issuesOf(Organization, organization), specs, (path) => `organization.${path}`),
      }
      const subdomain = subdomainProblem(values['subdomain'] ?? '', app.config.SITES_DOMAIN)
      if (subdomain) wrong['subdomain'] = subdomain
      if (!wrong['locales'] && !wrong['default_locale'] && !locales.includes(change.default_locale))
        wrong['default_locale'] = `Choose one of the languages you ticked (${locales
          .filter(isLocale)
          .map((l) => LOCALE_NAMES[l])
          .join(', ')}).`
      const version = textOf(request.body, '_version')
      const was = textOf(request.body, '_was')
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, { values, errors: wrong }, assistant, {}, version || undefined, was || undefined)
      }
      // A publish or a change through /v1 of something this form does not show (its status, say)
      // changes the site's version too; the form is stale only when what it showed has changed.
      const unchanged = (current: SiteRecord) => {
        if (versionOf(viewOfSite(app, current)) !== version && versionOf(valuesOf(current)) !== was)
          throw new errors.preconditionFailed('The site has changed since the form was opened')
      }
      try {
        await auditedChange(request, async (trx) => {
          const { subdomain, ...rest } = change
          const changed = await updateAccountSite(
            trx,
            accountId,
            site.id,
            { ...rest, slug: slugFromInput(subdomain, app.config.SITES_DOMAIN) },
            version ? unchanged : undefined,
          )
          if (!changed) throw new errors.notFound('There is no such site in your account')
          await setSiteOrganization(trx, site.id, organization)
        })
      } catch (error) {
        const refusal = refusalOf(
          error,
          {
            invalid_subdomain: ['subdomain', 'Use lower-case letters, digits and hyphens only (no spaces or dots), such as my-bakery.'],
            subdomain_taken: ['subdomain', 'Another site has this address already. Choose another.'],
            invalid_locales: ['default_locale', 'Choose one of the languages you ticked.'],
            locale_in_use: ['locales', 'A language you unticked still has pages. Delete those pages first, or keep the language.'],
          },
          'site',
        )
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        const current = await ownSite(app, accountId, site.id)
        return render(
          app,
          reply,
          current,
          refusedState(values, refusal, refusal.stale ? valuesOf(current) : undefined),
          assistant,
          {},
          refusal.stale ? undefined : version || undefined,
          refusal.stale ? undefined : was || undefined,
        )
      }
      return reply.redirect(`/app/sites/${site.id}/settings?done=settings-saved`, 303)
    },
  )
}
