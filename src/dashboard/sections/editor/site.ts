import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { listSiteBuilds, queueBuild, rollbackTo, type Build } from '../../../domain/sites/builds.ts'
import { listSitePages } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable, when } from '../../layout.ts'
import { addressesOf, crumbs, LOCALE_NAMES, ownSite, pageAddress, shownDomain, SiteParams } from './context.ts'
import { refusalOf, refused } from './form.ts'
import { noticeOf } from './notices.ts'
import { mayChange, viewOnlyNote } from '../../permissions.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }

const SITE_STATUS: Record<SiteRecord['status'], string> = { draft: 'Not published yet', live: 'Live', offline: 'Offline (not served)' }

function buildStatus(build: Build): SafeHtml {
  switch (build.status) {
    case 'queued':
      return html`Waiting to publish…`
    case 'running':
      return html`Publishing…`
    case 'succeeded':
      return html`Published${build.pages === null ? '' : ` (${build.pages} ${build.pages === 1 ? 'page' : 'pages'})`}`
    case 'failed':
      return html`Publishing failed${build.error ? html`: ${build.error}` : ''}`
  }
}

async function render(
  app: FastifyInstance,
  reply: FastifyReply,
  site: SiteRecord,
  flash: { notice?: string; problem?: SafeHtml; publishProblem?: SafeHtml } = {},
) {
  const [builds, pages] = await Promise.all([
    listSiteBuilds(app.db, site.id, { limit: 20, offset: 0 }),
    listSitePages(app.db, site.id, { limit: 500, offset: 0 }),
  ])
  const where = addressesOf(app, site)
  const csrf = reply.formToken()
  const latest = builds.items[0]
  const published = site.live_build_id !== null
  const may = mayChange(reply.request.person)
  const body = html`${crumbs([[site.name]])}
${may ? '' : viewOnlyNote()}
${flash.problem ? html`<div class="error problems" role="alert"><h2>Nothing was published</h2><p>${flash.problem}</p></div>` : ''}
<section class="card" aria-labelledby="where-h"><h2 id="where-h">Where your site is</h2>
<p>Status: <strong>${SITE_STATUS[site.status]}</strong></p>
<p>Address: ${published && site.status === 'live' ? html`<a href="${where.subdomainUrl}">${where.subdomain}</a>` : html`<strong>${where.subdomain}</strong> <span class="muted">(shows your site once it is published)</span>`}</p>
<p>Own domain: ${where.domainUrl ? html`<a href="${where.domainUrl}">${shownDomain(site.domain!)}</a>` : html`none yet`}</p>
<p class="actions">${latest?.status === 'succeeded' || published ? html`<a href="${where.preview}">Preview the latest build<span class="sr-only"> of ${site.name}</span></a>` : ''}
<a href="/s/${site.id}/_draft/">Preview the draft<span class="sr-only"> of ${site.name}</span></a>
<a href="/app/sites/${site.id}/settings">Settings</a> <a href="/app/sites/${site.id}/theme">Look</a> <a href="/app/sites/${site.id}/navigation">Menu</a> <a href="/app/sites/${site.id}/domains">Domains</a> <a href="/app/sites/${site.id}/redirects">Redirects</a> <a href="/app/sites/${site.id}/reports">SEO reports</a> <a href="/app/sites/${site.id}/stats">Statistics</a></p>
</section>
<section aria-labelledby="pages-h"><h2 id="pages-h">Pages</h2>
${pages.items.length === 0 ? html`<p>Your site has no pages yet. Start with the home page.</p>` : ''}
${site.locales.map((locale) => {
  const inLocale = pages.items.filter((p) => p.locale === locale)
  if (inLocale.length === 0)
    return site.locales.length > 1 && pages.items.length > 0
      ? html`<h3>${LOCALE_NAMES[locale]}</h3><p>No pages in this language yet.</p>`
      : ''
  return html`${site.locales.length > 1 ? html`<h3>${LOCALE_NAMES[locale]}</h3>` : ''}<ul>${inLocale.map((p) => html`<li><a href="/app/pages/${p.id}">${p.title}</a> <code>${pageAddress(site, p)}</code></li>`)}</ul>`
})}
${may ? html`<p><a class="button" href="/app/sites/${site.id}/pages/new">Add a page</a></p>` : ''}
</section>
<section aria-labelledby="builds-h"><h2 id="builds-h">Publish</h2>
<p>Changes you make show on your site after you publish. Latest: <strong>${latest ? buildStatus(latest) : 'never published'}</strong>${latest?.finished_at ? html` <span class="muted">(${when(latest.finished_at)})</span>` : ''}${latest && (latest.status === 'queued' || latest.status === 'running') ? html` <a href="/app/sites/${site.id}">Check again</a>` : ''}</p>
${flash.publishProblem ? html`<p class="field-error" role="alert" id="publish-error"><span class="sr-only">Error: </span>${flash.publishProblem}</p>` : ''}
${may ? actionForm(`/app/sites/${site.id}/rebuild`, csrf, 'Publish now', { inline: false }) : ''}
${
  builds.items.length === 0
    ? ''
    : html`<h3>Earlier versions</h3><p class="hint">Each publish is kept.${may ? ' Go back to an earlier one if something went wrong; your pages in the editor stay as they are.' : ''}</p>${dataTable(
        'Builds',
        ['Build', 'Status', 'Pages', 'Finished', 'Live'],
        builds.items.map((b) => [
          html`<code>${b.id}</code>`,
          buildStatus(b),
          b.pages ?? '–',
          when(b.finished_at),
          site.live_build_id === b.id
            ? 'live'
            : b.status === 'succeeded' && may
              ? actionForm(`/app/sites/${site.id}/rollback`, csrf, `Go back to ${b.id}`, { kind: 'secondary', fields: { build_id: b.id } })
              : '',
        ]),
      )}`
}
</section>`
  return reply.page(site.name, 'sites', body, flash.notice ? { notice: flash.notice } : {})
}

/**
 * A site's home in the editor: where it is seen (subdomain, own domain, preview), publishing with
 * the latest build's status, the builds with roll back, and its pages by language.
 */
export default async function siteScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/sites/:id',
    { config: { operation: 'dashboard.sites.get' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) => render(app, reply, await ownSite(app, request.person.accountId, request.params.id), noticeOf(request)),
  )

  routes.post(
    '/sites/:id/rebuild',
    {
      config: { operation: 'dashboard.sites.rebuild' },
      schema: { hide: true, params: SiteParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      // /v1 publishes an empty site (its clients may mean to); a person is told what it would show.
      if ((await listSitePages(app.db, site.id, { limit: 1, offset: 0 })).total === 0) {
        await refused(request, reply, 409)
        return render(app, reply, site, {
          publishProblem: html`Add a page first: your site has no pages yet, so visitors would see only “Page not found”. <a href="/app/sites/${site.id}/pages/new">Add a page</a>, then publish.`,
        })
      }
      try {
        await auditedChange(request, (trx) => queueBuild(trx, site.id))
      } catch (error) {
        const refusal = refusalOf(error, {}, 'site')
        if (!refusal?.problem) throw error
        await refused(request, reply, refusal.status)
        return render(app, reply, site, { problem: refusal.problem })
      }
      return reply.redirect(`/app/sites/${site.id}?done=build-queued`, 303)
    },
  )

  routes.post(
    '/sites/:id/rollback',
    {
      config: { operation: 'dashboard.sites.rollback' },
      schema: {
        hide: true,
        params: SiteParams,
        body: Type.Object({ ...Form, build_id: Type.String({ pattern: '^bld_[A-Za-z0-9_-]{1,64}$' }) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      try {
        await auditedChange(request, (trx) => rollbackTo(trx, site.id, request.body.build_id))
      } catch (error) {
        const refusal = refusalOf(error, {}, 'site')
        if (!refusal?.problem) throw error
        await refused(request, reply, refusal.status)
        return render(app, reply, site, { problem: refusal.problem })
      }
      return reply.redirect(`/app/sites/${site.id}?done=rolled-back`, 303)
    },
  )
}
