import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { entitlementsOf } from '../../../domain/accounts/add-ons.ts'
import { SitePatch } from '../../../domain/sites/content-inputs.ts'
import { isLocale, LOCALES, type Locale } from '../../../domain/locales.ts'
import { assistantView, siteLogoId } from '../../../domain/sites/settings.ts'
import type { Media } from '../../../domain/media/media.ts'
import { mediaPicker, pickableMedia } from '../media-picker.ts'
import { Organization, organizationOf, setSiteOrganization, type Organization as OrganizationData } from '../../../domain/sites/hosting.ts'
import { updateAccountSite, type SiteRecord } from '../../../domain/sites/sites.ts'
import { RESERVED_SLUGS, SLUG_PATTERN, slugFromInput } from '../../../domain/sites/subdomains.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { translator, type Translator } from '../../../domain/i18n/translator.ts'
import { crumbs, localeName, localeOptions, ownSite, SiteParams, viewOfSite, viewOnly } from './context.ts'
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
import { mayChange } from '../../permissions.ts'

/** The form's fields in the page's language; `sitesDomain` ends the address's hint. */
function fieldsOf(t: Translator, sitesDomain = '') {
  const SITE: FieldSpec[] = [
    { name: 'name', label: t.t('editor.newSite.name'), maxLength: 200 },
    {
      name: 'subdomain',
      label: t.t('editor.settings.subdomain'),
      maxLength: 63,
      format: t.t('editor.settings.subdomain.format'),
      hint: t.t('editor.settings.subdomain.hint', { domain: sitesDomain }),
    },
  ]
  const LOCALES_FIELD: FieldSpec = {
    name: 'locales',
    label: t.t('editor.site.locales'),
    hint: t.t('editor.settings.locales.hint'),
    format: t.t('editor.site.locales.format'),
  }
  const DEFAULT_LOCALE: FieldSpec = { name: 'default_locale', label: t.t('editor.site.defaultLocale') }
  const ORGANIZATION: FieldSpec[] = [
    {
      name: 'organization.name',
      label: t.t('editor.settings.org.name'),
      hint: t.t('editor.settings.org.name.hint'),
      optional: true,
      maxLength: 200,
      autocomplete: 'organization',
    },
    {
      name: 'organization.email',
      label: t.t('editor.bf.email'),
      kind: 'email',
      optional: true,
      maxLength: 254,
      autocomplete: 'email',
      format: t.t('editor.bf.email.format'),
    },
    {
      name: 'organization.telephone',
      label: t.t('editor.bf.phone'),
      kind: 'tel',
      optional: true,
      maxLength: 40,
      autocomplete: 'tel',
      format: t.t('editor.bf.phone.format'),
    },
    {
      name: 'organization.logo',
      label: t.t('editor.settings.org.logo'),
      kind: 'link',
      optional: true,
      maxLength: 2000,
      hint: t.t('editor.settings.org.logo.hint'),
      format: t.t('editor.settings.org.logo.format'),
    },
    { name: 'organization.address.street', label: t.t('editor.bf.street'), optional: true, maxLength: 200, autocomplete: 'address-line1' },
    {
      name: 'organization.address.postal_code',
      label: t.t('editor.bf.postalCode'),
      optional: true,
      maxLength: 20,
      autocomplete: 'postal-code',
    },
    {
      name: 'organization.address.locality',
      label: t.t('editor.bf.locality'),
      optional: true,
      maxLength: 100,
      autocomplete: 'address-level2',
    },
    { name: 'organization.address.country', label: t.t('editor.bf.country'), optional: true, maxLength: 100, autocomplete: 'country-name' },
    {
      name: 'organization.register',
      label: t.t('editor.settings.org.register'),
      optional: true,
      maxLength: 200,
      hint: t.t('editor.settings.org.register.hint'),
    },
    {
      name: 'organization.vat_id',
      label: t.t('editor.settings.org.vat'),
      optional: true,
      maxLength: 40,
      hint: t.t('editor.settings.org.vat.hint'),
      format: t.t('editor.settings.org.vat.format'),
    },
    {
      name: 'organization.social',
      label: t.t('editor.settings.org.social'),
      kind: 'textarea',
      rows: 3,
      optional: true,
      maxLength: 5100,
      hint: t.t('editor.settings.org.social.hint'),
      format: t.t('editor.settings.org.social.format'),
    },
  ]
  const ASSISTANT: FieldSpec[] = [
    { name: 'assistant.enabled', label: t.t('editor.settings.assistant.enabled') },
    {
      name: 'assistant.persona',
      label: t.t('editor.settings.assistant.persona'),
      optional: true,
      maxLength: 60,
      hint: t.t('editor.settings.assistant.persona.hint'),
    },
    {
      name: 'assistant.booking_url',
      label: t.t('editor.settings.assistant.booking'),
      kind: 'link',
      optional: true,
      maxLength: 500,
      hint: t.t('editor.settings.assistant.booking.hint'),
      format: t.t('editor.settings.assistant.booking.format'),
    },
    { name: 'assistant.lead', label: t.t('editor.settings.assistant.lead') },
    { name: 'assistant.handoff', label: t.t('editor.settings.assistant.handoff') },
  ]
  const LOGO: FieldSpec = {
    name: 'logo_media_id',
    label: t.t('editor.settings.logo'),
    optional: true,
    hint: t.t('editor.settings.logo.hint'),
  }
  const specs = specsOf(SITE, [LOCALES_FIELD, DEFAULT_LOCALE, LOGO], ORGANIZATION, ASSISTANT)
  return { SITE, LOCALES_FIELD, DEFAULT_LOCALE, LOGO, ORGANIZATION, ASSISTANT, specs }
}
const SLUG = new RegExp(SLUG_PATTERN)

/**
 * What is wrong with a typed address, checked with the other fields so every problem shows at once
 * (the domain's own check, `slugFromInput`, stops at the first): its length named before its
 * characters, and the service's reserved names said to be reserved rather than taken.
 */
function subdomainProblem(t: Translator, typed: string, sitesDomain: string): string | undefined {
  const value = typed.trim().toLowerCase().replace(/\.$/, '')
  const label = value.endsWith(`.${sitesDomain}`) ? value.slice(0, -sitesDomain.length - 1) : value
  if (label === '') return t.t('editor.form.required')
  if (label.length > 63) return t.t('editor.settings.subdomain.tooLong', { length: label.length })
  if (!SLUG.test(label)) return t.t('editor.settings.subdomain.format')
  if (RESERVED_SLUGS.has(label)) return t.t('editor.settings.subdomain.reserved', { label })
  return undefined
}

const TOGGLES = new Set(['assistant.enabled', 'assistant.lead', 'assistant.handoff'])
/** The names of the fields the form sends (words aside). */
const NAMES = fieldsOf(translator('en'))

const ADDRESS_PARTS = ['street', 'postal_code', 'locality', 'country'] as const

function valuesOf(site: SiteRecord): Record<string, string> {
  const org = organizationOf(site.settings)
  const assistant = assistantView(site.settings)
  return {
    name: site.name,
    subdomain: site.slug,
    locales: site.locales.join(','),
    default_locale: site.default_locale,
    logo_media_id: siteLogoId(site.settings) ?? '',
    'organization.name': org.name ?? '',
    'organization.email': org.email ?? '',
    'organization.telephone': org.telephone ?? '',
    'organization.logo': org.logo ?? '',
    ...Object.fromEntries(ADDRESS_PARTS.map((part) => [`organization.address.${part}`, org.address?.[part] ?? ''])),
    'organization.register': org.register ?? '',
    'organization.vat_id': org.vat_id ?? '',
    'organization.social': (org.social ?? []).join('\n'),
    'assistant.enabled': assistant.enabled ? 'on' : '',
    'assistant.persona': assistant.persona ?? '',
    'assistant.booking_url': assistant.booking_url ?? '',
    'assistant.lead': assistant.lead ? 'on' : '',
    'assistant.handoff': assistant.handoff ? 'on' : '',
  }
}

function valuesFrom(body: FormBody): Record<string, string> {
  const values: Record<string, string> = {}
  for (const spec of [...NAMES.SITE, NAMES.DEFAULT_LOCALE, NAMES.LOGO, ...NAMES.ORGANIZATION]) values[spec.name] = textOf(body, spec.name)
  for (const spec of NAMES.ASSISTANT)
    values[spec.name] = !TOGGLES.has(spec.name) ? textOf(body, spec.name) : textOf(body, spec.name) === 'on' ? 'on' : ''
  values['locales'] = listOf(body, 'locales').join(',')
  return values
}

/** The organization as it is stored: only what was filled in; the address whole once any part of it is. */
function organizationFrom(values: Record<string, string>): OrganizationData {
  const text = (name: string) => (values[name] ?? '').trim()
  const org: Record<string, unknown> = {}
  for (const key of ['name', 'email', 'telephone', 'logo', 'register'])
    if (text(`organization.${key}`)) org[key] = text(`organization.${key}`)
  // A VAT number is written with spaces and dots as often as without: kept as the register writes it.
  const vat = text('organization.vat_id')
    .replace(/[\s.-]/g, '')
    .toUpperCase()
  if (vat) org['vat_id'] = vat
  if (ADDRESS_PARTS.some((part) => text(`organization.address.${part}`))) {
    const address: Record<string, string> = {
      street: text('organization.address.street'),
      locality: text('organization.address.locality'),
      country: text('organization.address.country'),
    }
    if (text('organization.address.postal_code')) address['postal_code'] = text('organization.address.postal_code')
    org['address'] = address
  }
  // One profile per line; blank lines are dropped.
  const social = text('organization.social')
    .split(/\s*\n\s*/)
    .filter(Boolean)
  if (social.length) org['social'] = social
  return org as OrganizationData
}

/** `version`: the one the person's form had, kept on a refusal so a later save still notices another tab's change. */
function render(
  app: FastifyInstance,
  reply: FastifyReply,
  site: SiteRecord,
  shown: FormState,
  assistant: boolean,
  library: readonly Media[],
  notice: { notice?: string } = {},
  version = versionOf(viewOfSite(app, site)),
  was = versionOf(valuesOf(site)),
) {
  const may = mayChange(reply.request.person)
  const { t } = reply.request
  const { SITE, LOCALES_FIELD, DEFAULT_LOCALE, LOGO, ORGANIZATION, ASSISTANT, specs } = fieldsOf(t, app.config.SITES_DOMAIN)
  const state = may ? shown : { ...shown, readOnly: true }
  const body = html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.site.settings')]])}
${may ? '' : viewOnly(t)}
${problems(state, labelsOf(specs), t)}
${may ? html`<form method="post" action="/app/sites/${site.id}/settings" novalidate>${hidden(reply.formToken(), version)}<input type="hidden" name="_was" value="${was}">` : html`<div>`}
<section class="card" aria-labelledby="site-h"><h2 id="site-h">${t.t('editor.settings.site')}</h2>
${field(state, SITE[0]!, t)}
${field(state, SITE[1]!, t)}
${checks(state, LOCALES_FIELD, localeOptions(t, LOCALES), t)}
${choice(state, DEFAULT_LOCALE, localeOptions(t, LOCALES), t)}
</section>
<section class="card" aria-labelledby="logo-h"><h2 id="logo-h">${t.t('editor.settings.logo.heading')}</h2>
${mediaPicker(t, state, LOGO, library)}
</section>
<section class="card" aria-labelledby="org-h"><h2 id="org-h">${t.t('editor.settings.org')}</h2>
<p class="hint">${t.t('editor.settings.org.hint')}</p>
${ORGANIZATION.map((spec) => field(state, spec, t))}
</section>
<section class="card" aria-labelledby="assistant-h"><h2 id="assistant-h">${t.t('editor.settings.assistant')}</h2>
${
  assistant
    ? ASSISTANT.map((spec) => (TOGGLES.has(spec.name) ? toggle(state, spec, t) : field(state, spec, t)))
    : html`<p>${t.rich(
        'editor.settings.assistant.addOn',
        {},
        { billing: (words) => html`<a href="/app/billing">${words}</a>`, plans: (words) => html`<a href="/#plans">${words}</a>` },
      )}</p>`
}
</section>
${
  may
    ? html`<button type="submit">${t.t('editor.settings.save')}</button>
</form>`
    : html`</div>`
}`
  return reply.page(t.t('editor.settings.title', { name: site.name }), 'sites', body, notice)
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
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const [assistant, library] = await Promise.all([assistantIncluded(site.account_id!), pickableMedia(app.db, site.account_id!)])
      return render(app, reply, site, formState(valuesOf(site)), assistant, library, noticeOf(request))
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
        logo_media_id: text('logo_media_id') || null,
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
      const { t } = request
      const { specs } = fieldsOf(t)
      const wrong = {
        ...fieldErrors(issuesOf(SitePatch, change), specs, undefined, t),
        ...fieldErrors(issuesOf(Organization, organization), specs, (path) => `organization.${path}`, t),
      }
      const subdomain = subdomainProblem(t, values['subdomain'] ?? '', app.config.SITES_DOMAIN)
      if (subdomain) wrong['subdomain'] = subdomain
      if (!wrong['locales'] && !wrong['default_locale'] && !locales.includes(change.default_locale))
        wrong['default_locale'] = t.t('editor.site.defaultNotTicked', {
          languages: locales
            .filter(isLocale)
            .map((l) => localeName(t, l))
            .join(', '),
        })
      const version = textOf(request.body, '_version')
      const was = textOf(request.body, '_was')
      // The photos are read only to show the form again: a saved form redirects.
      const library = () => pickableMedia(app.db, accountId)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, { values, errors: wrong }, assistant, await library(), {}, version || undefined, was || undefined)
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
            invalid_subdomain: ['subdomain', t.t('editor.settings.subdomain.format')],
            subdomain_taken: ['subdomain', t.t('editor.settings.subdomain.taken')],
            invalid_locales: ['default_locale', t.t('editor.site.invalidLocales')],
            locale_in_use: ['locales', t.t('editor.settings.localeInUse')],
            // The only check of the domain's the form cannot make first: the photo left the library meanwhile.
            validation_failed: ['logo_media_id', t.t('media.picker.gone')],
          },
          'site',
          t,
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
          await library(),
          {},
          refusal.stale ? undefined : version || undefined,
          refusal.stale ? undefined : was || undefined,
        )
      }
      return reply.redirect(`/app/sites/${site.id}/settings?done=settings-saved`, 303)
    },
  )
}
