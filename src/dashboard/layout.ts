import type { Role } from '../domain/accounts/members.ts'
import { languageSwitch } from '../domain/i18n/switch.ts'
import type { MessageKey, Translator } from '../domain/i18n/translator.ts'
import { documentShell, html, type SafeHtml } from '../infra/html.ts'

/** The sections for owners first (DESIGN.md 17): what a business needs, then what only developers use. */
const MAIN = [
  ['sites', '/app/sites', 'nav.sites'],
  ['media', '/app/media', 'nav.media'],
  ['messages', '/app/leads', 'nav.messages'],
  ['stats', '/app/stats', 'nav.statistics'],
  ['members', '/app/members', 'nav.team'],
  ['billing', '/app/billing', 'nav.billing'],
] as const
const DEVELOPERS = [
  ['tokens', '/app/tokens', 'nav.tokens'],
  ['webhooks', '/app/webhooks', 'nav.webhooks'],
  ['audit', '/app/audit-log', 'nav.audit'],
] as const

/** A page's place in the navigation; leads and conversations are both under Messages. */
export type Section =
  | 'overview'
  | 'accounts'
  | 'leads'
  | 'conversations'
  | Exclude<(typeof MAIN)[number][0], 'messages'>
  | (typeof DEVELOPERS)[number][0]

const navId = (section: Section) => (section === 'leads' || section === 'conversations' ? 'messages' : section)

/** Sections only an account's owners open (DESIGN.md 12): the others are not offered to the rest. */
export const OWNER_SECTIONS: ReadonlySet<string> = new Set(['webhooks', 'members', 'audit'])

/** Who is looking: the person and their role in the account they chose. */
export interface Viewer {
  email: string
  role: Role
}

const STYLE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f8fafc}
a{color:#1d4ed8}header{background:#1e293b;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
header .brand{font-weight:700;margin-right:auto;color:#fff;text-decoration:none}nav .group{color:#cbd5e1;font-size:.85rem;margin-left:.5rem}
.languages{display:flex;gap:.25rem;margin:0}.languages button{padding:.1rem .45rem;font-size:.85rem;background:none;border:1px solid #94a3b8;color:#fff}.languages .current{font-weight:700;border-color:#fff}header a{color:#fff}header form{margin:0}header .who{color:#e2e8f0;font-size:.9rem;overflow-wrap:anywhere}
header button.signout{background:none;border:0;padding:0;color:#fff;text-decoration:underline;border-radius:0}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .75rem}nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
main{max-width:64rem;margin:0 auto;padding:1rem}h1{font-size:1.5rem;overflow-wrap:anywhere}h2{font-size:1.2rem;margin-top:2rem}
.card{background:#fff;border:1px solid #cbd5e1;border-radius:8px;padding:1rem;margin:1rem 0}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e2e8f0;vertical-align:top}
button,.button{font:inherit;padding:.35rem .8rem;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:#1d4ed8}button.danger{background:#b91c1c;border-color:#b91c1c}
form.inline{display:inline-block;margin:0 .25rem .25rem 0}label{display:block;margin:.5rem 0 .2rem;font-weight:600}input,select,textarea{font:inherit;padding:.35rem .5rem;border:1px solid #64748b;border-radius:6px;max-width:100%}
fieldset{border:1px solid #cbd5e1;border-radius:6px}.check{font-weight:400;display:inline-block;margin-right:1rem}
.secret{font-family:ui-monospace,monospace;background:#fef3c7;padding:.5rem;overflow-wrap:anywhere;display:block}
.notice{background:#dcfce7;border:1px solid #16a34a;padding:.5rem 1rem;border-radius:6px}.error{background:#fee2e2;border:1px solid #b91c1c;padding:.5rem 1rem;border-radius:6px}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}meter{width:100%;height:1.5rem}.muted{color:#475569;font-size:.9rem}
code{overflow-wrap:break-word}code.long{overflow-wrap:anywhere}
.week .day{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .5rem;margin:.4rem 0}fieldset.business,fieldset.hours{margin-left:0;margin-right:0;padding-left:.4rem;padding-right:.4rem}.week .name{flex:1 0 100%;font-weight:600}@media(min-width:40em){.week .name{flex:0 0 7rem}}.week label{margin:0;font-weight:400}.field .week input[type=time]{width:auto;max-width:100%}.week .field-error{flex-basis:100%;margin:0}
[hidden]{display:none!important}.crumbs ol{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}.crumbs li+li::before{content:"›";margin-right:.25rem;color:#475569}
.field{margin:0 0 1rem}.field input:not([type=checkbox]),.field textarea,.field select{width:100%}.field textarea{min-height:6rem}.optional{font-weight:400;color:#475569}
.hint{margin:.1rem 0 .3rem;color:#475569;font-size:.9rem}.field-error{margin:.1rem 0 .3rem;color:#b91c1c;font-weight:600}
.invalid input:not([type=checkbox]),.invalid textarea,.invalid select,[aria-invalid=true]{border:2px solid #b91c1c}.saved{margin:.3rem 0 0;padding:.3rem .5rem;background:#fef3c7;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere}
.problems h2{margin:.25rem 0;font-size:1.1rem}.problems a{color:#7f1d1d;font-weight:600}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}.actions form{margin:0}
ol.blocks{list-style:none;padding:0}ol.blocks>li{background:#fff;border:1px solid #cbd5e1;border-radius:8px;padding:.75rem 1rem;margin:0 0 .75rem}
.rendered{border-left:4px solid #cbd5e1;padding:0 .75rem;margin:.5rem 0;overflow-wrap:anywhere}.rendered img{max-width:100%;height:auto}
fieldset.item{margin:0 0 1rem;padding:.5rem 1rem}
.media-list{list-style:none;padding:0}.media-item{display:flex;flex-wrap:wrap;gap:1rem}.media-item>div{flex:1 1 16rem;min-width:0}img.thumb{height:auto;max-width:100%;border-radius:4px;background:#e2e8f0}
.picks{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.5rem}.pick{font-weight:400;display:flex;flex-direction:column;gap:.25rem;border:1px solid #cbd5e1;border-radius:6px;padding:.4rem;overflow-wrap:anywhere}.pick:has(input:checked){border:2px solid #1d4ed8}.kind{font-size:.85rem;font-weight:600;color:#475569;text-transform:uppercase;letter-spacing:.03em}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,.table:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
@media (max-width:40rem){main{padding:.75rem}.table table,.table tbody,.table tr,.table td{display:block;width:100%}.table table{background:none}
.table thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.table tr{background:#fff;border:1px solid #cbd5e1;border-radius:8px;margin:0 0 .75rem;padding:.25rem .5rem}
.table td{border-bottom:1px solid #e2e8f0;padding:.35rem 0}.table td:last-child{border-bottom:0}
.table td::before{content:attr(data-label);display:block;font-size:.85rem;font-weight:600;color:#475569}
code{overflow-wrap:anywhere}}`

/** What a dashboard page is made of, besides the layout itself. */
export interface LayoutParts {
  t: Translator
  title: string
  section: Section
  viewer: Viewer
  csrf: string
  /** The page's own address, where the language switch comes back to. */
  returnTo: string
  body: SafeHtml
  flash?: { notice?: string; error?: string }
  banner?: SafeHtml
}

/**
 * A dashboard page in the person's language: navigation (the sections the person's role opens,
 * the developers' apart), who is signed in with their role, the language switch, sign-out (a form
 * posting to /signout with the CSRF token), a flash line and the section's content; no script but
 * the copy button's.
 */
export function layout(parts: LayoutParts): SafeHtml {
  const { t, viewer, section, flash } = parts
  const opened = <T extends readonly [string, string, MessageKey]>(items: readonly T[]) =>
    items.filter(([id]) => viewer.role === 'owner' || !OWNER_SECTIONS.has(id))
  const link = ([id, href, label]: readonly [string, string, MessageKey]) =>
    html`<li><a href="${href}"${id === navId(section) ? html` aria-current="page"` : ''}>${t.t(label)}</a></li>`
  const developers = opened(DEVELOPERS)
  return documentShell({
    lang: t.lang,
    title: t.t('layout.title', { title: parts.title }),
    style: STYLE,
    noindex: true,
    body: html`<header>
<a class="brand" href="/app"${section === 'overview' ? html` aria-current="page"` : ''}>${t.t('brand.name')}</a>
<nav aria-label="${t.t('nav.label')}"><ul>${opened(MAIN).map(link)}</ul>${developers.length ? html`<ul aria-label="${t.t('nav.developers')}"><li class="group" aria-hidden="true">${t.t('nav.developers')}:</li>${developers.map(link)}</ul>` : ''}</nav>
<span class="who">${t.t('layout.who', { email: viewer.email, role: t.t(`role.${viewer.role}`) })}</span>
<a href="/app/accounts"${section === 'accounts' ? html` aria-current="page"` : ''}>${t.t('nav.accounts')}</a>
${languageSwitch(t, parts.csrf, parts.returnTo)}
<form method="post" action="/signout"><input type="hidden" name="_csrf" value="${parts.csrf}"><button type="submit" class="signout">${t.t('signout.button')}</button></form>
</header>
<main>
${parts.banner ?? ''}
<h1>${parts.title}</h1>
${flash?.notice ? html`<p class="notice" role="status">${flash.notice}</p>` : ''}
${flash?.error ? html`<p class="error" role="alert">${flash.error}</p>` : ''}
${parts.body}
</main>`,
  })
}

/** A form that posts one action with the CSRF token (POST-redirect-GET on the server side). */
export function actionForm(
  action: string,
  csrf: string,
  label: string,
  options: { fields?: Record<string, string>; kind?: 'secondary' | 'danger'; inline?: boolean } = {},
): SafeHtml {
  return html`<form method="post" action="${action}"${options.inline === false ? '' : html` class="inline"`}><input type="hidden" name="_csrf" value="${csrf}">${Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit"${options.kind ? html` class="${options.kind}"` : ''}>${label}</button></form>`
}

export function when(date: Date | string | null | undefined): string {
  if (!date) return '–'
  return new Date(date).toISOString().replace('T', ' ').slice(0, 19) + ' UTC'
}

export type Cell = SafeHtml | string | number | null | undefined

/**
 * A table that stays usable on a phone: below 40rem each row becomes a card and each cell shows
 * its column's name (data-label) above its value. The wrapper scrolls when a wide table does not
 * fit, so it is a named, focusable region.
 */
export function dataTable(label: string, columns: readonly string[], rows: readonly (readonly Cell[])[]): SafeHtml {
  return html`<div class="table" role="region" aria-label="${label}" tabindex="0"><table><caption class="sr-only">${label}</caption><thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead><tbody>${rows.map(
    (cells) => html`<tr>${cells.map((cell, i) => html`<td data-label="${columns[i] ?? ''}">${cell ?? ''}</td>`)}</tr>`,
  )}</tbody></table></div>`
}

/** A secret shown once (a new token, a webhook signing secret), with a copy button where scripts run. */
export function shownOnce(t: Translator, title: string, secret: string, note?: string): SafeHtml {
  return html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">${title}</h2>
<p>${t.t('layout.shownOnce')}${note ? html` ${note}` : ''}</p>
<output class="secret" id="secret">${secret}</output>
<button type="button" class="secondary" id="copy" data-copied="${t.t('layout.copied')}" hidden>${t.t('layout.copy')}</button>
<script src="/app/copy.js" defer></script>
</section>`
}
