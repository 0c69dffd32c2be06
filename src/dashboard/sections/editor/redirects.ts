import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { createRedirect, deleteRedirect, listSiteRedirects, NewRedirect, redirectView } from '../../../domain/sites/redirects.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable } from '../../layout.ts'
import { mayChange, viewOnlyNote } from '../../permissions.ts'
import { crumbs, ownSite, SiteParams } from './context.ts'
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

const FROM = {
  name: 'from',
  label: 'Old address',
  hint: 'The address on your site that should send visitors on, such as /old-offer.',
  maxLength: 500,
  format: 'Write an address of your site starting with /, such as /old-offer, without spaces, ? or #.',
}
const TO = {
  name: 'to',
  label: 'New address',
  hint: 'A page of your site, such as /offers, or a full web address starting with https://.',
  maxLength: 2000,
  kind: 'link' as const,
  format: 'Write an address of your site starting with /, or a web address starting with https:// or http://.',
}
const STATUS = { name: 'status', label: 'Kind' }
const specs = specsOf([FROM, TO, STATUS])
const KINDS = [
  ['301', 'Moved for good (301): search engines follow'],
  ['302', 'For a while (302)'],
] as const

const RedirectParams = Type.Object({ id: SiteParams.properties.id, redirect_id: Type.String({ pattern: '^rdr_[A-Za-z0-9_-]{8,64}$' }) })

async function render(app: FastifyInstance, reply: FastifyReply, site: SiteRecord, state: FormState, notice?: string) {
  const { items } = await listSiteRedirects(app.db, site.id, { limit: 500, offset: 0 })
  const csrf = reply.formToken()
  const may = mayChange(reply.request.person)
  const body = html`${crumbs([[site.name, `/app/sites/${site.id}`], ['Redirects']])}
${may ? '' : viewOnlyNote()}
${problems(state, labelsOf(specs))}
<p>A redirect sends visitors and search engines from an old address of your site to a new one, so links to it keep working. When you change the address of a published page, its old address is redirected for you.</p>
${
  items.length === 0
    ? html`<p>No redirects yet.</p>`
    : dataTable(
        'Redirects',
        ['Old address', 'New address', 'Kind', ...(may ? ['Actions'] : [])],
        items.map((r) => {
          const view = redirectView(r)
          return [
            html`<code>${view.from}</code>`,
            html`<code class="long">${view.to}</code>`,
            String(view.status),
            ...(may
              ? [
                  actionForm(`/app/sites/${site.id}/redirects/${view.id}/delete`, csrf, `Remove the redirect from ${view.from}`, {
                    kind: 'secondary',
                  }),
                ]
              : []),
          ]
        }),
      )
}
${
  may
    ? html`<form method="post" action="/app/sites/${site.id}/redirects" class="card" novalidate>${hidden(csrf)}
${field(state, FROM)}
${field(state, TO)}
${choice(state, STATUS, KINDS)}
<button type="submit">Add redirect</button></form>`
    : ''
}`
  return reply.page('Redirects', 'sites', body, notice ? { notice } : {})
}

const NOTICES: Record<string, string> = {
  'redirect-added': 'The redirect was added. It works at once on your published site.',
  'redirect-removed': 'The redirect was removed.',
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
        await ownSite(app, request.person.accountId, request.params.id),
        formState({ from: '', to: '', status: '301' }),
        NOTICES[request.query.done ?? ''],
      ),
  )

  routes.post(
    '/sites/:id/redirects',
    {
      config: { operation: 'dashboard.redirects.create' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      const values = {
        from: textOf(request.body, 'from').trim(),
        to: textOf(request.body, 'to').trim(),
        status: textOf(request.body, 'status'),
      }
      const input = { from: values.from, to: values.to, status: values.status === '302' ? (302 as const) : (301 as const) }
      const wrong = fieldErrors(issuesOf(NewRedirect, input), specs)
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
            redirect_loop: ['to', 'This would send visitors in a circle back to the old address. Choose another new address.'],
            redirect_from_taken: ['from', 'This address already has a redirect. Remove it first.'],
          },
          'site',
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
      const site = await ownSite(app, request.person.accountId, request.params.id)
      await auditedChange(request, async (trx) => {
        if (!(await deleteRedirect(trx, site.id, request.params.redirect_id)))
          throw new errors.notFound('There is no such redirect on this site')
      })
      return reply.redirect(`/app/sites/${site.id}/redirects?done=redirect-removed`, 303)
    },
  )
}
