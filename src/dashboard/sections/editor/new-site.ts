import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { NewSite } from '../../../domain/sites/content-inputs.ts'
import { isLocale, LOCALES, type Locale } from '../../../domain/locales.ts'
import { createAccountSite, listAccountSites, prepareDraft } from '../../../domain/sites/sites.ts'
import { copyWriterOf } from '../../../domain/sites/templates/llm-copy.ts'
import { businessFieldset, businessOf, businessSpecs, emptyBusiness, hourSpecs } from './business-fields.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import type { Translator } from '../../../domain/i18n/translator.ts'
import { crumbs, localeName, localeOptions, viewOnly } from './context.ts'
import { mayChange } from '../../permissions.ts'
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
  type FormBody,
  type FormState,
} from './form.ts'

/** The form's fields in the page's language. */
function fieldsOf(t: Translator) {
  const NAME = {
    name: 'name',
    label: t.t('editor.newSite.name'),
    hint: t.t('editor.newSite.name.hint'),
    maxLength: 200,
    autocomplete: 'organization',
  }
  const LOCALES_FIELD = { name: 'locales', label: t.t('editor.site.locales'), format: t.t('editor.site.locales.format') }
  const DEFAULT_LOCALE = { name: 'default_locale', label: t.t('editor.site.defaultLocale'), hint: t.t('editor.newSite.defaultLocale.hint') }
  return {
    NAME,
    LOCALES_FIELD,
    DEFAULT_LOCALE,
    specs: specsOf([NAME, LOCALES_FIELD, DEFAULT_LOCALE], businessSpecs(t), hourSpecs(t)),
  }
}

/** A path of the site's schema (NewSite) as the field of the form that gave it. */
const formName = (path: string) => (path === 'template' || path === 'business.type' ? 'business_type' : path.replace(/^business\./, ''))

/**
 * Making a site: GET /app/start (the "Start free" of the front page, behind the sign-in) opens the
 * editor on the account's first site, or asks about the business when there is none;
 * /app/sites/new makes another within the plan's limit. Both post to /app/sites, which creates
 * the site as /v1 does: with a type of business, as the first draft made from the facts given.
 */
export default async function newSiteScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const writer = copyWriterOf(app.config, (err) =>
    app.log.warn({ err }, 'the model did not write the draft; the template’s words are used'),
  )
  function render(reply: FastifyReply, state: FormState, first: boolean) {
    const { t } = reply.request
    const { NAME, LOCALES_FIELD, DEFAULT_LOCALE, specs } = fieldsOf(t)
    if (!mayChange(reply.request.person)) {
      return reply.page(
        first ? t.t('editor.newSite.noneYet') : t.t('sites.create'),
        'sites',
        html`${first ? '' : crumbs(t, [[t.t('sites.create')]])}${viewOnly(t, 'sites')}<p><a href="/app/sites">${t.t('editor.newSite.seeSites')}</a></p>`,
      )
    }
    return reply.page(
      first ? t.t('editor.newSite.tellUs') : t.t('sites.create'),
      'sites',
      html`${first ? html`<p>${t.t('editor.newSite.welcome')}</p>` : crumbs(t, [[t.t('sites.create')]])}
${problems(state, labelsOf(specs), t)}
<form method="post" action="/app/sites" class="card" novalidate>${hidden(reply.formToken())}
${field(state, NAME, t)}
${checks(state, LOCALES_FIELD, localeOptions(t, LOCALES), t)}
${choice(state, DEFAULT_LOCALE, localeOptions(t, LOCALES), t)}
${businessFieldset(state, t)}
<button type="submit">${t.t('editor.newSite.submit')}</button>
</form>`,
    )
  }
  const fresh = () => formState({ name: '', locales: 'en', default_locale: 'en', ...emptyBusiness() })

  routes.get('/start', { config: { operation: 'dashboard.start' }, schema: { hide: true } }, async (request, reply) => {
    const { items } = await listAccountSites(app.db, request.person.accountId, { limit: 1, offset: 0 })
    if (items[0]) return reply.redirect(`/app/sites/${items[0].id}`, 303)
    return render(reply, fresh(), true)
  })

  routes.get('/sites/new', { config: { operation: 'dashboard.sites.new' }, schema: { hide: true } }, async (_request, reply) =>
    render(reply, fresh(), false),
  )

  routes.post(
    '/sites',
    { config: { operation: 'dashboard.sites.create' }, schema: { hide: true, body: FormBodySchema } },
    async (request, reply) => {
      const locales = listOf(request.body, 'locales')
      const values: Record<string, string> = {
        name: textOf(request.body, 'name'),
        locales: locales.join(','),
        default_locale: textOf(request.body, 'default_locale'),
      }
      for (const name of Object.keys(emptyBusiness())) values[name] = textOf(request.body, name)
      const { total } = await listAccountSites(app.db, request.person.accountId, { limit: 1, offset: 0 })
      const { t } = request
      const { business, hourErrors } = businessOf(values, t)
      const input = {
        name: values.name!.trim(),
        locales: locales.filter(isLocale),
        default_locale: values.default_locale as Locale,
        ...(business ? { template: business.type, business } : {}),
      }
      const wrong = { ...fieldErrors(issuesOf(NewSite, { ...input, locales }), fieldsOf(t).specs, formName, t), ...hourErrors }
      if (!wrong['locales'] && !wrong['default_locale'] && !input.locales.includes(input.default_locale))
        wrong['default_locale'] = t.t('editor.site.defaultNotTicked', { languages: input.locales.map((l) => localeName(t, l)).join(', ') })
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(reply, { values, errors: wrong }, total === 0)
      }
      try {
        const draft = await prepareDraft(input, writer)
        const site = await auditedChange(request, (trx) => createAccountSite(trx, request.person.accountId, input, draft))
        return reply.redirect(`/app/sites/${site.id}?done=site-created`, 303)
      } catch (error) {
        const refusal = refusalOf(error, { invalid_locales: ['default_locale', t.t('editor.site.invalidLocales')] }, 'site', t)
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        return render(reply, refusedState(values, refusal), total === 0)
      }
    },
  )
}
