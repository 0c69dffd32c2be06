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
  VERIFY_JOB,
  type Domain,
} from '../../../domain/sites/domains.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { serviceHostnames } from '../../../domain/sites/subdomains.ts'
import { errors } from '../../../errors.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { enqueueJob } from '../../../infra/jobs.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable } from '../../layout.ts'
import { addressesOf, crumbs, ownSite, shownDomain, SiteParams } from './context.ts'
import { mayChange, viewOnlyNote } from '../../permissions.ts'
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

const HOSTNAME = {
  name: 'hostname',
  label: 'Add a domain',
  hint: 'A domain you own, such as www.your-business.com.',
  maxLength: 253,
  format: 'Write the domain alone, such as www.your-business.com, without https:// or a path.',
}
const specs = specsOf([HOSTNAME])

const STATUS: Record<Domain['status'], string> = { pending: 'Waiting for verification', active: 'Active', failed: 'Verification failed' }

async function render(app: FastifyInstance, reply: FastifyReply, site: SiteRecord, state: FormState, notice?: string) {
  const domains = await listSiteDomains(app.db, site.id, { limit: 100, offset: 0 })
  const csrf = reply.formToken()
  const where = addressesOf(app, site)
  const may = mayChange(reply.request.person)
  const body = html`${crumbs([[site.name, `/app/sites/${site.id}`], ['Domains']])}
${may ? '' : viewOnlyNote()}
${problems(state, labelsOf(specs))}
<p>Your site is always at <strong>${where.subdomain}</strong>. You can also show it at a domain you own. To prove the domain is yours, add the TXT record shown below where you manage the domain (often the company you bought it from), then press Verify. A new record can take up to an hour to be seen.</p>
${
  domains.items.length === 0
    ? html`<p>No domains yet.</p>`
    : dataTable(
        'Domains',
        ['Hostname', 'Status', 'TXT record', ...(may ? ['Actions'] : [])],
        domains.items.map((d) => {
          const view = domainView(d)
          const failure = view.failure_reason?.detail
          const shown = shownDomain(view.hostname)
          return [
            `${shown}${view.primary ? ' (primary)' : ''}`,
            html`${STATUS[view.status]}${failure ? html`: ${failure}` : ''}`,
            html`Name: <code>${view.verification.name}</code><br>Value: <code class="long">${view.verification.value}</code>`,
            ...(may
              ? [
                  html`${view.status === 'active' ? '' : actionForm(`/app/domains/${d.id}/verify`, csrf, `Verify ${shown}`, { kind: 'secondary' })}<a href="/app/domains/${d.id}/delete">Remove ${shown}</a>`,
                ]
              : []),
          ] satisfies Array<SafeHtml | string>
        }),
      )
}
${
  may
    ? html`<form method="post" action="/app/sites/${site.id}/domains" class="card" novalidate>${hidden(csrf)}
${field(state, HOSTNAME)}
<button type="submit">Add domain</button></form>`
    : ''
}`
  return reply.page('Domains', 'sites', body, notice ? { notice } : {})
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
      render(app, reply, await ownSite(app, request.person.accountId, request.params.id), formState({ hostname: '' })),
  )

  routes.post(
    '/sites/:id/domains',
    {
      config: { operation: 'dashboard.domains.create' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      const values = { hostname: textOf(request.body, 'hostname') }
      const wrong = fieldErrors(issuesOf(NewDomain, { hostname: values.hostname.trim() }), specs)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, { values, errors: wrong })
      }
      try {
        await auditedChange(request, (trx) => addDomain(trx, site.id, parseHostname(values.hostname, ownHostnames)))
      } catch (error) {
        const refusal = refusalOf(error, { invalid_hostname: ['hostname'], hostname_taken: ['hostname'] }, 'site')
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
        await requestVerification(trx, domain, (inner) =>
          enqueueJob(inner, VERIFY_JOB, { domain_id: domain.id }, { uniqueKey: domain.id, maxAttempts: 1 }),
        )
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
      return reply.page(
        `Remove ${shown}?`,
        'sites',
        html`${crumbs([[site.name, `/app/sites/${site.id}`], ['Domains', `/app/sites/${site.id}/domains`], ['Remove']])}
<p>Your site stops answering at ${shown}. It stays at ${addressesOf(app, site).subdomain}, and you can add the domain again later.</p>
<form method="post" action="/app/domains/${domain.id}/delete" class="actions">${hidden(reply.formToken())}<button type="submit" class="danger">Remove ${shown}</button> <a href="/app/sites/${site.id}/domains">Keep it</a></form>`,
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
