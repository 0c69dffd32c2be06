import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { NewSite } from '../../../domain/sites/content-inputs.ts'
import { isLocale, LOCALES, type Locale } from '../../../domain/locales.ts'
import { createAccountSite, listAccountSites } from '../../../domain/sites/sites.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { crumbs, LOCALE_NAMES, localeOptions } from './context.ts'
import { mayChange, viewOnlyNote } from '../../permissions.ts'
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

const NAME = {
  name: 'name',
  label: 'Name of your site',
  hint: 'Usually your business’s name. It also makes your site’s address; you can change both later.',
  maxLength: 200,
  autocomplete: 'organization',
}
const LOCALES_FIELD = { name: 'locales', label: 'Languages of your site', format: 'Choose at least one language.' }
const DEFAULT_LOCALE = {
  name: 'default_locale',
  label: 'Main language',
  hint: 'Pages in this language are at the root of your site’s address; the others get /de/ or /fr/ in front.',
}
const specs = specsOf([NAME, LOCALES_FIELD, DEFAULT_LOCALE])

/**
 * Making a site: GET /app/start (the "Start free" of the front page, behind the sign-in) opens the
 * editor on the account's first site, or asks for a name when there is none; /app/sites/new makes
 * another within the plan's limit. Both post to /app/sites, which creates the site as /v1 does.
 */
export default async function newSiteScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  function render(reply: FastifyReply, state: FormState, first: boolean) {
    if (!mayChange(reply.request.person)) {
      return reply.page(
        first ? 'No site yet' : 'Create a site',
        'sites',
        html`${first ? '' : crumbs([['Create a site']])}${viewOnlyNote('this account’s sites')}<p><a href="/app/sites">See the sites</a></p>`,
      )
    }
    return reply.page(
      first ? 'Name your site' : 'Create a site',
      'sites',
      html`${first ? html`<p>Welcome! Your site gets its own address at once; you add pages and publish when you are ready.</p>` : crumbs([['Create a site']])}
${problems(state, labelsOf(specs))}
<form method="post" action="/app/sites" class="card" novalidate>${hidden(reply.formToken())}
${field(state, NAME)}
${checks(state, LOCALES_FIELD, localeOptions(LOCALES))}
${choice(state, DEFAULT_LOCALE, localeOptions(LOCALES))}
<button type="submit">Create my site</button>
</form>`,
    )
  }
  const fresh = () => formState({ name: '', locales: 'en', default_locale: 'en' })

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
      const values = {
        name: textOf(request.body, 'name'),
        locales: locales.join(','),
        default_locale: textOf(request.body, 'default_locale'),
      }
      const { total } = await listAccountSites(app.db, request.person.accountId, { limit: 1, offset: 0 })
      const input = { name: values.name.trim(), locales: locales.filter(isLocale), default_locale: values.default_locale as Locale }
      const wrong = fieldErrors(issuesOf(NewSite, { ...input, locales }), specs)
      if (!wrong['locales'] && !wrong['default_locale'] && !input.locales.includes(input.default_locale))
        wrong['default_locale'] = `Choose one of the languages you ticked (${input.locales.map((l) => LOCALE_NAMES[l]).join(', ')}).`
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(reply, { values, errors: wrong }, total === 0)
      }
      try {
        const site = await auditedChange(request, (trx) => createAccountSite(trx, request.person.accountId, input))
        return reply.redirect(`/app/sites/${site.id}?done=site-created`, 303)
      } catch (error) {
        const refusal = refusalOf(error, { invalid_locales: ['default_locale', 'Choose one of the languages you ticked.'] }, 'site')
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        return render(reply, refusedState(values, refusal), total === 0)
      }
    },
  )
}
