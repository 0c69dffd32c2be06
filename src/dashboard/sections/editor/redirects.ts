import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { createRedirect, deleteRedirect, listSiteRedirects, NewRedirect, redirectView } from '../../../domain/sites/redirects.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable } from '../../layout.ts'
import type { MessageKey, Translator } from '../../../domain/i18n/translator.ts'
import { mayChange } from '../../permissions.ts'
import { crumbs, ownSite, SiteParams, viewOnly } from './context.ts'
import {
  choice,
  field,
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
  specsOf,
  textOf,
  type FormBody,
  type FormState,
  Done,
} from './form.ts'

/** The form's fields in the page's language. */
function fieldsOf(t: Translator) {
  const FROM = {
    name: 'from',
    label: t.t('editor.redirects.from'),
    hint: t.t('editor.redirects.from.hint'),
    maxLength: 500,
    format: t.t('editor.redirects.from.format'),
  }
  const TO = {
    name: 'to',
    label: t.t('editor.redirects.to'),
    hint: t.t('editor.redirects.to.hint'),
    maxLength: 2000,
    kind: 'link' as const,
    format: t.t('editor.redirects.to.format'),
  }
  const STATUS = { name: 'status', label: t.t('editor.redirects.kind') }
  const KINDS = [
    ['301', t.t('editor.redirects.kind.301')],
    ['302', t.t('editor.redirects.kind.302')],
  ] as const
  return { FROM, TO, STATUS, KINDS, specs: specsOf([FROM, TO, STATUS]) }
}

const RedirectParams = Type.Object({ id: SiteParams.properties.id, redirect_id: Type.String({ pattern: '^rdr_[A-Za-z0-9_-]{8,64}$' }) })

async function render(app: FastifyInstance, reply: FastifyReply, site: SiteRecord, state: FormState, notice?: string) {
  const { items } = await listSiteRedirects(app.db, site.id, { limit: 500, offset: 0 })
  const csrf = reply.formToken()
  const may = mayChange(reply.request.person)
  const { t } = reply.request
  const { FROM, TO, STATUS, KINDS, specs } = fieldsOf(t)
  const body = html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.site.redirects')]])}
${may ? '' : viewOnly(t)}
${problems(state, labelsOf(specs), t)}
<p>${t.t('editor.redirects.intro')}</p>
${
  items.length === 0
    ? html`<p>${t.t('editor.redirects.none')}</p>`
    : dataTable(
        t.t('editor.site.redirects'),
        [FROM.label, TO.label, STATUS.label, ...(may ? [t.t('editor.domains.col.actions')] : [])],
        items.map((r) => {
          const view = redirectView(r)
          return [
            html`<code>${view.from}</code>`,
            html`<code class="long">${view.to}</code>`,
            String(view.status),
            ...(may
              ? [
                  actionForm(
                    `/app/sites/${site.id}/redirects/${view.id}/delete`,
                    csrf,
                    t.t('editor.redirects.remove', { from: view.from }),
                    {
                      kind: 'secondary',
                    },
                  ),
                ]
              : []),
          ]
        }),
      )
}
${
  may
    ? html`<form method="post" action="/app/sites/${site.id}/redirects" class="card" novalidate>${hidden(csrf)}
${field(state, FROM, t)}
${field(state, TO, t)}
${choice(state, STATUS, KINDS, t)}
<button type="submit">${t.t('editor.redirects.submit')}</button></form>`
    : ''
}`
  return reply.page(t.t('editor.site.redirects'), 'sites', body, notice ? { notice } : {})
}

const NOTICES: Record<string, MessageKey> = {
  'redirect-added': 'editor.redirects.added',
  'redirect-removed': 'editor.redirects.removed',
}

/** A site's redirects (DESIGN.md 19): listed, added (a loop is refused beside its field) and removed. */
export default async function redirectsScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/sites/:id/redirects',
    { config: { operation: 'dashboard.redirects.list' }, schema: { hide: true, params: SiteParams, querystring: Done } },
    async (request, reply) =>
      render(
        app,
        reply,
        await ownSite(app, request.person.accountId, request.params.id, request.t),
        formState({ from: '', to: '', status: '301' }),
        NOTICES[request.query.done ?? ''] && request.t.t(NOTICES[request.query.done ?? '']!),
      ),
  )

  routes.post(
    '/sites/:id/redirects',
    {
      config: { operation: 'dashboard.redirects.create' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const values = {
        from: textOf(request.body, 'from').trim(),
        to: textOf(request.body, 'to').trim(),
        status: textOf(request.body, 'status'),
      }
      const input = { from: values.from, to: values.to, status: values.status === '302' ? (302 as const) : (301 as const) }
      const { t } = request
      const wrong = fieldErrors(issuesOf(NewRedirect, input), fieldsOf(t).specs, undefined, t)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, { values, errors: wrong })
      }
      try {
        await auditedChange(request, (trx) => createRedirect(trx, site.id, input))
      } catch (error) {
        const refusal = refusalOf(
          error,
          {
            redirect_loop: ['to', t.t('editor.redirects.loop')],
            redirect_from_taken: ['from', t.t('editor.redirects.taken')],
          },
          'site',
          t,
        )
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        return render(app, reply, site, refusedState(values, refusal))
      }
      return reply.redirect(`/app/sites/${site.id}/redirects?done=redirect-added`, 303)
    },
  )

  routes.post(
    '/sites/:id/redirects/:redirect_id/delete',
    {
      config: { operation: 'dashboard.redirects.delete' },
      schema: {
        hide: true,
        params: RedirectParams,
        body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      await auditedChange(request, async (trx) => {
        if (!(await deleteRedirect(trx, site.id, request.params.redirect_id)))
          throw new errors.notFound('There is no such redirect on this site')
      })
      return reply.redirect(`/app/sites/${site.id}/redirects?done=redirect-removed`, 303)
    },
  )
}
