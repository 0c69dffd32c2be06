import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { NewPage } from '../../../domain/sites/content-inputs.ts'
import { createPage, listSitePages } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { crumbs, ownSite, SiteParams, viewOnly } from './context.ts'
import { mayChange } from '../../permissions.ts'
import {
  fieldErrors,
  FormBodySchema,
  formState,
  hidden,
  issuesOf,
  labelsOf,
  problems,
  refusalOf,
  refused,
  refusedState,
  type FormBody,
  type FormState,
} from './form.ts'
import { pageConflicts, pageFields, pageInput, pageSpecs, pageValuesFrom } from './page-fields.ts'

/** Adding a page to a site: title, address, language and description, as POST /v1/sites/{id}/pages takes them. */
export default async function newPageScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  function render(reply: FastifyReply, site: SiteRecord, state: FormState) {
    const { t } = reply.request
    const trail = crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.newPage.title')]])
    if (!mayChange(reply.request.person))
      return reply.page(
        t.t('editor.newPage.title'),
        'sites',
        html`${trail}${viewOnly(t)}<p><a href="/app/sites/${site.id}">${t.t('editor.backToSite')}</a></p>`,
      )
    return reply.page(
      t.t('editor.newPage.title'),
      'sites',
      html`${trail}
${problems(state, labelsOf(pageSpecs(t)), t)}
<form method="post" action="/app/sites/${site.id}/pages" class="card" novalidate>${hidden(reply.formToken())}
${pageFields(t, state, site, { isNew: true })}
<div class="actions"><button type="submit">${t.t('editor.newPage.submit')}</button> <a href="/app/sites/${site.id}">${t.t('editor.cancel')}</a></div>
</form>`,
    )
  }

  routes.get(
    '/sites/:id/pages/new',
    { config: { operation: 'dashboard.pages.new' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const { items } = await listSitePages(app.db, site.id, { limit: 500, offset: 0 })
      const hasHome = items.some((p) => p.path === '/' && p.locale === site.default_locale)
      return render(
        reply,
        site,
        formState({ title: hasHome ? '' : site.name, path: hasHome ? '' : '/', locale: site.default_locale, description: '' }),
      )
    },
  )

  routes.post(
    '/sites/:id/pages',
    {
      config: { operation: 'dashboard.pages.create' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const values = pageValuesFrom(request.body)
      const { path, ...titled } = pageInput(values)
      const input = path === '' ? titled : { ...titled, path }
      const { t } = request
      const wrong = fieldErrors(issuesOf(NewPage, input), pageSpecs(t), undefined, t)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(reply, site, { values, errors: wrong })
      }
      try {
        const page = await auditedChange(request, (trx) => createPage(trx, site, input))
        return reply.redirect(`/app/pages/${page.id}?done=page-added`, 303)
      } catch (error) {
        const refusal = refusalOf(error, pageConflicts(t), 'page', t)
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        return render(reply, site, refusedState(values, refusal))
      }
    },
  )
}
