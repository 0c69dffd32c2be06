import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { listAccountSites } from '../../domain/sites/sites.ts'
import { subdomainHost } from '../../domain/sites/subdomains.ts'
import { previewUrl } from '../../domain/sites/views.ts'
import { html } from '../../infra/html.ts'
import { dataTable } from '../layout.ts'
import { mayChange } from '../permissions.ts'
import blockScreen from './editor/block.ts'
import domainsScreen from './editor/domains.ts'
import { shownDomain } from './editor/context.ts'
import newPageScreen from './editor/new-page.ts'
import newSiteScreen from './editor/new-site.ts'
import pageScreen from './editor/page.ts'
import historyScreen from './editor/history.ts'
import redirectsScreen from './editor/redirects.ts'
import settingsScreen from './editor/settings.ts'
import themeScreen from './editor/theme.ts'
import navigationScreen from './editor/navigation.ts'
import siteScreen from './editor/site.ts'

/** Sites: the account's sites with their addresses, and the editor's screens for each (one file per screen under editor/). */
export default async function sitesSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get('/sites', { config: { operation: 'dashboard.sites.list' }, schema: { hide: true } }, async (request, reply) => {
    const { t } = request
    const { items } = await listAccountSites(app.db, request.person.accountId, { limit: 100, offset: 0 })
    return reply.page(
      t.t('sites.title'),
      'sites',
      html`${
        items.length === 0
          ? html`<p>${t.t('sites.none')}</p>`
          : dataTable(
              t.t('sites.table'),
              [
                t.t('sites.col.name'),
                t.t('sites.col.address'),
                t.t('sites.col.domain'),
                t.t('sites.col.status'),
                t.t('sites.col.published'),
                t.t('sites.col.preview'),
              ],
              items.map((s) => [
                html`<a href="/app/sites/${s.id}">${s.name}</a>`,
                subdomainHost(s.slug, app.config.SITES_DOMAIN),
                s.domain === null ? '–' : shownDomain(s.domain),
                t.t(`sites.status.${s.status}`),
                s.published_at ? t.dateTime(s.published_at) : '–',
                html`<a href="${previewUrl(app.config.BASE_URL, s.id)}">${t.rich('sites.previewOf', { name: s.name }, { hidden: (words) => html`<span class="sr-only">${words}</span>` })}</a>`,
              ]),
            )
      }
${mayChange(request.person) ? html`<p><a class="button" href="/app/sites/new">${t.t('sites.create')}</a></p>` : ''}`,
    )
  })

  for (const screen of [
    newSiteScreen,
    siteScreen,
    settingsScreen,
    themeScreen,
    navigationScreen,
    domainsScreen,
    newPageScreen,
    pageScreen,
    historyScreen,
    redirectsScreen,
    blockScreen,
  ])
    await app.register(screen)
}
