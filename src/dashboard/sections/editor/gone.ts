import type { FastifyReply, FastifyRequest } from 'fastify'
import { getAccountSite } from '../../../domain/sites/sites.ts'
import type { Db } from '../../../infra/db.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { refused, textOf, type FormBody } from './form.ts'

/** Ids a form carries to find its way back when what it changes is gone. */
const SITE_ID = /^site_[A-Za-z0-9_-]{1,64}$/

/** Where the person goes back to: the page's editor when it is still there, else its site, else the sites. */
export async function backOf(db: Db, request: FastifyRequest<{ Body: FormBody }>, page?: { id: string; title: string }): Promise<SafeHtml> {
  const { t } = request
  if (page) return html`<a href="/app/pages/${page.id}">${t.t('editor.gone.backToPage', { title: page.title })}</a>`
  const siteId = textOf(request.body, '_site')
  const site = SITE_ID.test(siteId) ? await getAccountSite(db, request.person.accountId, siteId) : undefined
  return site
    ? html`<a href="/app/sites/${site.id}">${t.t('editor.gone.backToSite', { name: site.name })}</a>`
    : html`<a href="/app/sites">${t.t('editor.gone.backToSites')}</a>`
}

/**
 * `what` and `copyInto` are words of the page's language ("this page", "a new page").
 * A form saved after what it changes was deleted (in another tab, by someone else): nothing to
 * save into, so the page says so in plain words, shows what was typed in read-only fields to
 * copy, and leads back. Answered 404 and recorded as a refusal.
 */
export async function goneMeanwhile(
  request: FastifyRequest<{ Body: FormBody }>,
  reply: FastifyReply,
  gone: { title: string; what: string; typed: ReadonlyArray<readonly [label: string, value: string]>; back: SafeHtml; copyInto: string },
) {
  await refused(request, reply, 404)
  const { t } = request
  const kept = gone.typed.filter(([, value]) => value.trim() !== '')
  return reply.page(
    gone.title,
    'sites',
    html`<div class="error problems" role="alert"><h2>${t.t('editor.form.nothingSaved')}</h2><p>${t.t('editor.gone.text', { what: gone.what })} ${kept.length ? t.t('editor.gone.copy', { into: gone.copyInto }) : t.t('editor.gone.nothingTyped')}</p></div>
${
  kept.length
    ? html`<div class="card">${kept.map(([label, value], i) => html`<div class="field"><label for="typed-${i}">${label}</label><textarea id="typed-${i}" readonly rows="${Math.min(12, Math.max(2, value.split('\n').length + 1))}">${value}</textarea></div>`)}</div>`
    : ''
}
<p>${gone.back}</p>`,
  )
}
