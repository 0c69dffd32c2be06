import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listSiteBuilds, queueBuild, rollbackTo } from '../../domain/builds.ts'
import { addDomain, deleteDomain, domainView, getAccountDomain, listSiteDomains, parseHostname, requestVerification, VERIFY_JOB } from '../../domain/domains.ts'
import { getAccountSite, listAccountSites } from '../../domain/sites.ts'
import { errors } from '../../errors.ts'
import { html } from '../../infra/html.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import { actionForm, dataTable, when } from '../layout.ts'
import { audited } from '../audited.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const SiteParams = Type.Object({ id: Type.String({ pattern: '^site_[A-Za-z0-9_-]{1,64}$' }) })
const DomainParams = Type.Object({ id: Type.String({ pattern: '^dom_[A-Za-z0-9_-]{1,64}$' }) })

/** Sites: list with preview links; a site's builds (rebuild, rollback) and domains (TXT record, verify). */
export default async function sitesSection(app: FastifyInstance) {
  const { db, config } = app
  const ownHostnames = [new URL(config.BASE_URL).hostname, new URL(config.API_URL).hostname]
  const preview = (siteId: string) => `${config.BASE_URL}/s/${siteId}/`

  async function siteOf(accountId: string, siteId: string) {
    const site = await getAccountSite(db, accountId, siteId)
    if (!site) throw new errors.notFound('No such site')
    return site
  }

  app.get('/sites', { config: { operation: 'dashboard.sites.list' }, schema: { hide: true } }, async (request, reply) => {
    const { items } = await listAccountSites(db, request.person.accountId, { limit: 100, offset: 0 })
    return reply.page(
      'Sites',
      'sites',
      items.length === 0
        ? html`<p>No sites yet. Create one through the REST API (<code>POST /v1/sites</code>) or an MCP client.</p>`
        : dataTable(
            'Your sites',
            ['Name', 'Domain', 'Status', 'Published', 'Preview'],
            items.map((s) => [html`<a href="/app/sites/${s.id}">${s.name}</a>`, s.domain ?? '–', s.status, when(s.published_at), html`<a href="${preview(s.id)}">Preview<span class="sr-only"> of ${s.name}</span></a>`]),
          ),
    )
  })

  app.get<{ Params: { id: string } }>('/sites/:id', { config: { operation: 'dashboard.sites.get' }, schema: { hide: true, params: SiteParams } }, async (request, reply) => {
    const site = await siteOf(request.person.accountId, request.params.id)
    const [builds, domains] = await Promise.all([listSiteBuilds(db, site.id, { limit: 20, offset: 0 }), listSiteDomains(db, site.id, { limit: 100, offset: 0 })])
    const csrf = reply.formToken()
    return reply.page(
      site.name,
      'sites',
      html`<p>Status: <strong>${site.status}</strong>. <a href="${preview(site.id)}">Preview the latest build</a></p>
<section aria-labelledby="builds-h"><h2 id="builds-h">Builds</h2>
${actionForm(`/app/sites/${site.id}/rebuild`, csrf, 'Rebuild and publish', { inline: false })}
${builds.items.length === 0
  ? html`<p>No builds yet.</p>`
  : dataTable(
      'Builds',
      ['Build', 'Status', 'Pages', 'Finished', 'Live'],
      builds.items.map((b) => [
        html`<code>${b.id}</code>`,
        html`${b.status}${b.error ? html`: ${b.error}` : ''}`,
        b.pages ?? '–',
        when(b.finished_at),
        site.live_build_id === b.id ? 'live' : b.status === 'succeeded' ? actionForm(`/app/sites/${site.id}/rollback`, csrf, `Go back to ${b.id}`, { kind: 'secondary', fields: { build_id: b.id } }) : '',
      ]),
    )}
</section>
<section aria-labelledby="domains-h"><h2 id="domains-h">Domains</h2>
${domains.items.length === 0
  ? html`<p>No domains yet.</p>`
  : dataTable(
      'Domains',
      ['Hostname', 'Status', 'TXT record', 'Actions'],
      domains.items.map((d) => {
        const view = domainView(d)
        return [
          `${view.hostname}${view.primary ? ' (primary)' : ''}`,
          view.status,
          html`<code>${view.verification.name}</code><br><code>${view.verification.value}</code>`,
          html`${view.status === 'active' ? '' : actionForm(`/app/domains/${d.id}/verify`, csrf, `Verify ${view.hostname}`, { kind: 'secondary' })}${actionForm(`/app/domains/${d.id}/delete`, csrf, `Remove ${view.hostname}`, { kind: 'danger' })}`,
        ]
      }),
    )}
<form method="post" action="/app/sites/${site.id}/domains" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<label for="hostname">Add a domain</label><input id="hostname" name="hostname" required maxlength="253" placeholder="www.example.com">
<button type="submit">Add domain</button></form>
</section>`,
    )
  })

  app.post<{ Params: { id: string } }>(
    '/sites/:id/rebuild',
    { config: { operation: 'dashboard.sites.rebuild' }, preHandler: app.csrfProtection, schema: { hide: true, params: SiteParams, body: Type.Object(Form, { additionalProperties: false }) } },
    async (request, reply) => {
      const site = await siteOf(request.person.accountId, request.params.id)
      await audited(request, (trx) => queueBuild(trx, site.id))
      return reply.redirect(`/app/sites/${site.id}?done=build-queued`, 303)
    },
  )

  app.post<{ Params: { id: string }; Body: { build_id: string } }>(
    '/sites/:id/rollback',
    {
      config: { operation: 'dashboard.sites.rollback' },
      preHandler: app.csrfProtection,
      schema: { hide: true, params: SiteParams, body: Type.Object({ ...Form, build_id: Type.String({ pattern: '^bld_[A-Za-z0-9_-]{1,64}$' }) }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const site = await siteOf(request.person.accountId, request.params.id)
      await audited(request, (trx) => rollbackTo(trx, site.id, request.body.build_id))
      return reply.redirect(`/app/sites/${site.id}?done=rolled-back`, 303)
    },
  )

  app.post<{ Params: { id: string }; Body: { hostname: string } }>(
    '/sites/:id/domains',
    {
      config: { operation: 'dashboard.domains.create' },
      preHandler: app.csrfProtection,
      schema: { hide: true, params: SiteParams, body: Type.Object({ ...Form, hostname: Type.String({ minLength: 1, maxLength: 253 }) }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const site = await siteOf(request.person.accountId, request.params.id)
      const hostname = parseHostname(request.body.hostname, ownHostnames)
      await audited(request, (trx) => addDomain(trx, site.id, hostname))
      return reply.redirect(`/app/sites/${site.id}?done=domain-added`, 303)
    },
  )

  for (const [action, operation, done] of [['verify', 'domains.verify', 'verify-queued'], ['delete', 'domains.delete', 'domain-removed']] as const) {
    app.post<{ Params: { id: string } }>(
      `/domains/:id/${action}`,
      { config: { operation: `dashboard.${operation}` }, preHandler: app.csrfProtection, schema: { hide: true, params: DomainParams, body: Type.Object(Form, { additionalProperties: false }) } },
      async (request, reply) => {
        const siteId = await audited(request, async (trx) => {
          const domain = await getAccountDomain(trx, request.person.accountId, request.params.id)
          if (!domain) throw new errors.notFound('No such domain')
          if (action === 'delete') await deleteDomain(trx, domain)
          else await requestVerification(trx, domain, (inner) => enqueueJob(inner, VERIFY_JOB, { domain_id: domain.id }, { uniqueKey: domain.id, maxAttempts: 1 }))
          return domain.site_id
        })
        return reply.redirect(`/app/sites/${siteId}?done=${done}`, 303)
      },
    )
  }
}
