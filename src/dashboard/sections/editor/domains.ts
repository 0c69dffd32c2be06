import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { NewDomain } from '../../../domain/sites/content-inputs.ts'
import {
  addDomain,
  deleteDomain,
  domainView,
  getAccountDomain,
  listSiteDomains,
  parseHostname,
  requestVerification,
} from '../../../domain/sites/domains.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { serviceHostnames } from '../../../domain/sites/subdomains.ts'
import { errors } from '../../../errors.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable } from '../../layout.ts'
import type { Translator } from '../../../domain/i18n/translator.ts'
import { addressesOf, crumbs, ownSite, shownDomain, SiteParams, viewOnly } from './context.ts'
import { mayChange } from '../../permissions.ts'
import {
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
} from './form.ts'

const DomainParams = Type.Object({ id: Type.String({ pattern: '^dom_[A-Za-z0-9_-]{1,64}$' }) })
const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }

/** The form's one field in the page's language. */
function hostnameField(t: Translator) {
  const HOSTNAME = {
    name: 'hostname',
    label: t.t('editor.domains.add'),
    hint: t.t('editor.domains.add.hint'),
    maxLength: 253,
    format: t.t('editor.domains.add.format'),
  }
  return { HOSTNAME, specs: specsOf([HOSTNAME]) }
}

async function render(app: FastifyInstance, reply: FastifyReply, site: SiteRecord, state: FormState, notice?: string) {
  const domains = await listSiteDomains(app.db, site.id, { limit: 100, offset: 0 })
  const csrf = reply.formToken()
  const where = addressesOf(app, site)
  const may = mayChange(reply.request.person)
  const { t } = reply.request
  const { HOSTNAME, specs } = hostnameField(t)
  const body = html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.site.domains')]])}
${may ? '' : viewOnly(t)}
${problems(state, labelsOf(specs), t)}
<p>${t.rich('editor.domains.intro', { subdomain: where.subdomain }, { strong: (words) => html`<strong>${words}</strong>` })}</p>
${
  domains.items.length === 0
    ? html`<p>${t.t('editor.domains.none')}</p>`
    : dataTable(
        t.t('editor.site.domains'),
        [
          t.t('editor.domains.col.hostname'),
          t.t('sites.col.status'),
          t.t('editor.domains.col.txt'),
          ...(may ? [t.t('editor.domains.col.actions')] : []),
        ],
        domains.items.map((d) => {
          const view = domainView(d)
          const failure = view.failure_reason?.detail
          const shown = shownDomain(view.hostname)
          return [
            view.primary ? t.t('editor.domains.primary', { domain: shown }) : shown,
            html`${t.t('editor.domains.status', { status: view.status })}${failure ? html`: ${failure}` : ''}`,
            html`${t.t('editor.domains.txtName')} <code>${view.verification.name}</code><br>${t.t('editor.domains.txtValue')} <code class="long">${view.verification.value}</code>`,
            ...(may
              ? [
                  html`${view.status === 'active' ? '' : actionForm(`/app/domains/${d.id}/verify`, csrf, t.t('editor.domains.verify', { domain: shown }), { kind: 'secondary' })}<a href="/app/domains/${d.id}/delete">${t.t('editor.domains.remove', { domain: shown })}</a>`,
                ]
              : []),
          ] satisfies Array<SafeHtml | string>
        }),
      )
}
${
  may
    ? html`<form method="post" action="/app/sites/${site.id}/domains" class="card" novalidate>${hidden(csrf)}
${field(state, HOSTNAME, t)}
<button type="submit">${t.t('editor.domains.submit')}</button></form>`
    : ''
}`
  return reply.page(t.t('editor.site.domains'), 'sites', body, notice ? { notice } : {})
}

async function ownDomain(app: FastifyInstance, accountId: string, domainId: string, db = app.db) {
  const domain = await getAccountDomain(db, accountId, domainId)
  if (!domain) throw new errors.notFound('There is no such domain in your account')
  return domain
}

/**
 * A site's own domains (DESIGN.md 12: from plan lite): add one, the TXT record that proves it is
 * yours, verify, why a verification failed, and remove (asked once). The platform subdomain
 * needs none of this.
 */
export default async function domainsScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const ownHostnames = serviceHostnames(app.config)

  routes.get(
    '/sites/:id/domains',
    { config: { operation: 'dashboard.domains.list' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) =>
      render(app, reply, await ownSite(app, request.person.accountId, request.params.id, request.t), formState({ hostname: '' })),
  )

  routes.post(
    '/sites/:id/domains',
    {
      config: { operation: 'dashboard.domains.create' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const values = { hostname: textOf(request.body, 'hostname') }
      const { t } = request
      const wrong = fieldErrors(issuesOf(NewDomain, { hostname: values.hostname.trim() }), hostnameField(t).specs, undefined, t)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, { values, errors: wrong })
      }
      try {
        await auditedChange(request, (trx) => addDomain(trx, site.id, parseHostname(values.hostname, ownHostnames)))
      } catch (error) {
        // The domain's own message says exactly what is wrong with the name; in another language the field's format says it.
        const refusal = refusalOf(
          error,
          t.lang === 'en'
            ? { invalid_hostname: ['hostname'], hostname_taken: ['hostname'] }
            : {
                invalid_hostname: ['hostname', hostnameField(t).HOSTNAME.format],
                hostname_taken: ['hostname', t.t('editor.domains.taken')],
              },
          'site',
          t,
        )
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        // The domain's messages name it in its ASCII form; people read it as they wrote it.
        const named = Object.fromEntries(
          Object.entries(refusal.errors).map(([name, message]) => [
            name,
            message.replace(/[a-z0-9.-]*xn--[a-z0-9.-]*/gi, (host) => shownDomain(host)),
          ]),
        )
        return render(app, reply, site, refusedState(values, { ...refusal, errors: named }))
      }
      return reply.redirect(`/app/sites/${site.id}/domains?done=domain-added`, 303)
    },
  )

  routes.post(
    '/domains/:id/verify',
    {
      config: { operation: 'dashboard.domains.verify' },
      schema: { hide: true, params: DomainParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const siteId = await auditedChange(request, async (trx) => {
        const domain = await ownDomain(app, request.person.accountId, request.params.id, trx)
        await requestVerification(trx, domain)
        return domain.site_id
      })
      return reply.redirect(`/app/sites/${siteId}/domains?done=verify-queued`, 303)
    },
  )

  routes.get(
    '/domains/:id/delete',
    { config: { operation: 'dashboard.domains.confirmDelete' }, schema: { hide: true, params: DomainParams } },
    async (request, reply) => {
      const domain = await ownDomain(app, request.person.accountId, request.params.id)
      const site = await ownSite(app, request.person.accountId, domain.site_id)
      // A viewer removes nothing: the site's domains, read-only.
      if (!mayChange(request.person)) return reply.redirect(`/app/sites/${site.id}/domains`, 303)
      const shown = shownDomain(domain.hostname)
      const { t } = request
      return reply.page(
        t.t('editor.domains.confirmRemove', { domain: shown }),
        'sites',
        html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.site.domains'), `/app/sites/${site.id}/domains`], [t.t('editor.domains.removeCrumb')]])}
<p>${t.t('editor.domains.confirmRemove.text', { domain: shown, subdomain: addressesOf(app, site).subdomain })}</p>
<form method="post" action="/app/domains/${domain.id}/delete" class="actions">${hidden(reply.formToken())}<button type="submit" class="danger">${t.t('editor.domains.remove', { domain: shown })}</button> <a href="/app/sites/${site.id}/domains">${t.t('editor.keepIt')}</a></form>`,
      )
    },
  )

  // A domain is never edited, only verified: removing it needs no version.
  routes.post(
    '/domains/:id/delete',
    {
      config: { operation: 'dashboard.domains.delete' },
      schema: { hide: true, params: DomainParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const siteId = await auditedChange(request, async (trx) => {
        const domain = await ownDomain(app, request.person.accountId, request.params.id, trx)
        await deleteDomain(trx, domain)
        return domain.site_id
      })
      return reply.redirect(`/app/sites/${siteId}/domains?done=domain-removed`, 303)
    },
  )
}
