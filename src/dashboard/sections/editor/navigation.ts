import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { menuFor, navigationOf, type Navigation, type NavigationItem } from '../../../domain/sites/navigation.ts'
import { listSitePages } from '../../../domain/sites/pages.ts'
import { safeHref } from '../../../domain/sites/safe-href.ts'
import { updateAccountSite, type SiteRecord } from '../../../domain/sites/sites.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import type { Translator } from '../../../domain/i18n/translator.ts'
import { mayChange } from '../../permissions.ts'
import { crumbs, ownSite, SiteParams, viewOfSite, viewOnly } from './context.ts'
import {
  choice,
  field,
  FormBodySchema,
  formState,
  hidden,
  problems,
  refusalOf,
  refused,
  refusedState,
  textOf,
  toggle,
  versionOf,
  type FieldSpec,
  type FormBody,
  type FormState,
} from './form.ts'
import { noticeOf } from './notices.ts'

/** Empty rows offered for links to other sites, below those already in the menu. */
const NEW_LINKS = 2
const LINK = /^(https?:\/\/|mailto:|tel:)/

interface MenuPage {
  path: string
  title: string
}

/** Every path of the site once, with its title in the main language where it has one (home first, then by path). */
async function sitePages(app: FastifyInstance, site: SiteRecord): Promise<MenuPage[]> {
  const { items } = await listSitePages(app.db, site.id, { limit: 500, offset: 0 })
  const byPath = new Map<string, MenuPage>()
  for (const p of items) if (!byPath.has(p.path) || p.locale === site.default_locale) byPath.set(p.path, { path: p.path, title: p.title })
  return [...byPath.values()].sort((a, b) => (a.path === '/' ? -1 : b.path === '/' ? 1 : a.path.localeCompare(b.path)))
}

/** The form's values for a menu: each page's position, whether it shows and what it is under; then the links. */
function valuesOf(navigation: Navigation | null, pages: MenuPage[]): { values: Record<string, string>; links: number } {
  const values: Record<string, string> = {}
  const place = new Map<string, { order: number; under: string; hidden: boolean }>()
  const links: Array<{ label: string; url: string; order: number; under: string }> = []
  let order = 0
  for (const item of navigation ?? []) {
    order += 10
    if (item.page) place.set(item.page, { order, under: '', hidden: item.hidden === true })
    else links.push({ label: item.label ?? '', url: item.url ?? '', order, under: '' })
    for (const child of item.children ?? []) {
      order += 10
      const under = item.page ?? ''
      if (child.page) place.set(child.page, { order, under, hidden: child.hidden === true })
      else links.push({ label: child.label ?? '', url: child.url ?? '', order, under })
    }
  }
  pages.forEach((page, i) => {
    const at = place.get(page.path) ?? { order: (order += 10), under: '', hidden: false }
    Object.assign(values, {
      [`p${i}.order`]: String(at.order),
      [`p${i}.shown`]: at.hidden ? '' : 'on',
      [`p${i}.under`]: at.under,
    })
  })
  links.forEach((link, j) => {
    Object.assign(values, {
      [`l${j}.label`]: link.label,
      [`l${j}.url`]: link.url,
      [`l${j}.order`]: String(link.order),
      [`l${j}.under`]: link.under,
    })
  })
  return { values, links: links.length }
}

/**
 * The menu the form describes, or the errors beside its fields. Items at the top level and under
 * each page are sorted by their position; a page chosen as a parent must be at the top level. A
 * label the owner gave a page over /v1 is kept.
 */
function navigationFrom(
  t: Translator,
  values: Record<string, string>,
  pages: MenuPage[],
  links: number,
  saved: Navigation | null,
): { navigation: Navigation; errors: Record<string, string> } {
  const wrong: Record<string, string> = {}
  const kept = new Map<string, NavigationItem>()
  for (const item of saved ?? []) for (const one of [item, ...(item.children ?? [])]) if (one.page) kept.set(one.page, one)
  const rows: Array<{ item: NavigationItem; order: number; under: string; at: number; field: string }> = []
  const orderOf = (name: string) => {
    const text = (values[name] ?? '').trim()
    // A new link without a position goes to the end.
    if (text === '') return 10_000
    if (!/^\d{1,4}$/.test(text)) wrong[name] = t.t('editor.menu.wholeNumber')
    return Number(text)
  }
  const paths = new Set(pages.map((p) => p.path))
  pages.forEach((page, i) => {
    const own = kept.get(page.path)
    const item: NavigationItem = {
      page: page.path,
      ...(own?.label ? { label: own.label } : {}),
      ...(own?.labels ? { labels: own.labels } : {}),
    }
    if (values[`p${i}.shown`] !== 'on') item.hidden = true
    const under = values[`p${i}.under`] ?? ''
    if (under && (!paths.has(under) || under === page.path)) wrong[`p${i}.under`] = t.t('editor.menu.otherParent')
    rows.push({ item, order: orderOf(`p${i}.order`), under, at: rows.length, field: `p${i}.under` })
  })
  for (let j = 0; j < links + NEW_LINKS; j++) {
    const label = (values[`l${j}.label`] ?? '').trim()
    const url = (values[`l${j}.url`] ?? '').trim()
    if (!label && !url) continue
    if (!label) wrong[`l${j}.label`] = t.t('editor.menu.linkWords')
    if (!url) wrong[`l${j}.url`] = t.t('editor.menu.linkAddress')
    else if (!LINK.test(url) || !safeHref(url) || url.length > 2000) wrong[`l${j}.url`] = t.t('editor.menu.linkFormat')
    const under = values[`l${j}.under`] ?? ''
    if (under && !paths.has(under)) wrong[`l${j}.under`] = t.t('editor.menu.parent')
    rows.push({ item: { label: label.slice(0, 80), url }, order: orderOf(`l${j}.order`), under, at: rows.length, field: `l${j}.under` })
  }
  const byOrder = (a: (typeof rows)[number], b: (typeof rows)[number]) => a.order - b.order || a.at - b.at
  const underOf = new Map(rows.filter((r) => r.item.page).map((r) => [r.item.page!, r.under]))
  for (const row of rows) if (row.under && underOf.get(row.under)) wrong[row.field] ??= t.t('editor.menu.nested')
  const navigation: Navigation = rows
    .filter((r) => !r.under)
    .sort(byOrder)
    .map((r) => {
      const children = rows.filter((c) => r.item.page && c.under === r.item.page).sort(byOrder)
      return children.length ? { ...r.item, children: children.map((c) => c.item) } : r.item
    })
  return { navigation, errors: wrong }
}

function render(
  app: FastifyInstance,
  reply: FastifyReply,
  site: SiteRecord,
  pages: MenuPage[],
  links: number,
  state: FormState,
  notice: { notice?: string } = {},
) {
  const may = mayChange(reply.request.person)
  const { t } = reply.request
  const shown = may ? state : { ...state, readOnly: true }
  const parents: Array<readonly [string, string]> = [
    ['', t.t('editor.menu.top')],
    ...pages.map((p) => [p.path, t.t('editor.menu.under', { title: p.title })] as const),
  ]
  const labels: Record<string, string> = {}
  const spec = (name: string, label: string, extra: Partial<FieldSpec> = {}): FieldSpec => {
    labels[name] = label
    return { name, label, ...extra }
  }
  const preview = menuFor(
    navigationFrom(t, shown.values, pages, links, navigationOf(site.settings)).navigation,
    pages,
    site.default_locale,
    'Home',
  )
  const body = html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.site.menu')]])}
${may ? '' : viewOnly(t)}
${problems(shown, labels, t)}
<p>${t.t('editor.menu.intro')}</p>
${may ? html`<form method="post" action="/app/sites/${site.id}/navigation" novalidate>${hidden(reply.formToken(), versionOf(viewOfSite(app, site)))}` : html`<div>`}
${pages.map(
  (page, i) => html`<fieldset class="card"><legend>${page.title} <code>${page.path}</code></legend>
${toggle(shown, spec(`p${i}.shown`, t.t('editor.menu.show', { title: page.title })), t)}
${field(shown, spec(`p${i}.order`, t.t('editor.menu.position', { title: page.title }), { maxLength: 4, format: t.t('editor.menu.wholeNumber') }), t)}
${choice(
  shown,
  spec(`p${i}.under`, t.t('editor.menu.where', { title: page.title })),
  parents.filter(([path]) => path !== page.path),
  t,
)}
</fieldset>`,
)}
<h2>${t.t('editor.menu.links')}</h2>
<p class="hint">${t.t('editor.menu.links.hint')}</p>
${Array.from(
  { length: links + NEW_LINKS },
  (_, j) => html`<fieldset class="card"><legend>${j < links ? t.t('editor.menu.link', { n: j + 1 }) : t.t('editor.menu.newLink')}</legend>
${field(shown, spec(`l${j}.label`, t.t('editor.menu.link.words', { n: j + 1 }), { optional: true, maxLength: 80 }), t)}
${field(shown, spec(`l${j}.url`, t.t('editor.menu.link.address', { n: j + 1 }), { kind: 'link', optional: true, maxLength: 2000, hint: t.t('editor.menu.link.hint') }), t)}
${field(shown, spec(`l${j}.order`, t.t('editor.menu.link.position', { n: j + 1 }), { maxLength: 4 }), t)}
${choice(shown, spec(`l${j}.under`, t.t('editor.menu.link.where', { n: j + 1 })), parents, t)}
</fieldset>`,
)}
${may ? html`<p><button type="submit" name="_do" value="save">${t.t('editor.menu.save')}</button> <button type="submit" name="_do" value="reset" class="secondary">${t.t('editor.menu.reset')}</button></p></form>` : html`</div>`}
<section class="card" aria-labelledby="menu-h"><h2 id="menu-h">${t.t('editor.menu.yours')}</h2>
<ul>${preview.map((e) => html`<li>${e.label}${e.external ? html` <span class="muted">(${e.href})</span>` : ''}${e.children.length ? html`<ul>${e.children.map((c) => html`<li>${c.label}</li>`)}</ul>` : ''}</li>`)}</ul>
</section>`
  return reply.page(t.t('editor.menu.title', { name: site.name }), 'sites', body, notice)
}

/**
 * The site's menu: order, hidden pages, sub-pages and links elsewhere, in a plain form (no
 * script). Saved through the same domain function as PATCH /v1/sites/{id} `navigation`; the form
 * carries the site's ETag as its version.
 */
export default async function navigationScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/sites/:id/navigation',
    { config: { operation: 'dashboard.sites.navigation' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const pages = await sitePages(app, site)
      const { values, links } = valuesOf(navigationOf(site.settings), pages)
      return render(app, reply, site, pages, links, formState(values), noticeOf(request))
    },
  )

  routes.post(
    '/sites/:id/navigation',
    {
      config: { operation: 'dashboard.sites.update_navigation' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const accountId = request.person.accountId
      const site = await ownSite(app, accountId, request.params.id)
      const pages = await sitePages(app, site)
      const saved = navigationOf(site.settings)
      const links = valuesOf(saved, pages).links
      const values: Record<string, string> = {}
      for (const name of Object.keys(request.body))
        if (/^[pl]\d{1,3}\.(order|shown|under|label|url)$/.test(name)) values[name] = textOf(request.body, name)
      const reset = textOf(request.body, '_do') === 'reset'
      const { navigation, errors: wrong } = navigationFrom(request.t, values, pages, links, saved)
      if (!reset && Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, pages, links, { values, errors: wrong })
      }
      const version = textOf(request.body, '_version')
      try {
        await auditedChange(request, async (trx) => {
          const changed = await updateAccountSite(trx, accountId, site.id, { navigation: reset ? null : navigation }, (current) => {
            if (version && versionOf(viewOfSite(app, current)) !== version)
              throw new errors.preconditionFailed('The site has changed since the form was opened')
          })
          if (!changed) throw new errors.notFound('There is no such site in your account')
        })
      } catch (error) {
        const refusal = refusalOf(error, {}, 'site', request.t)
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        const current = await ownSite(app, accountId, site.id)
        return render(
          app,
          reply,
          current,
          pages,
          links,
          refusedState(values, refusal, valuesOf(navigationOf(current.settings), pages).values),
        )
      }
      return reply.redirect(`/app/sites/${site.id}/navigation?done=menu-saved`, 303)
    },
  )
}
