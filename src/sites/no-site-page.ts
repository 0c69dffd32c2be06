import type { FastifyReply, FastifyRequest } from 'fastify'
import { documentShell, html, sendPage, type SafeHtml } from '../infra/html.ts'
import { CSS } from './render/style.ts'

/** A person's browser asks for a page; an API client or a script gets the problem document. */
export function wantsPage(request: FastifyRequest): boolean {
  return request.headers.accept?.includes('text/html') === true
}

/**
 * A page the service itself answers on a site's origin (a form's answer, a page where no site
 * answers): the published sites' own style, never indexed.
 */
export function plainSitePage(page: { lang: string; title: string; main: SafeHtml; css?: string }): SafeHtml {
  return documentShell({
    lang: page.lang,
    title: page.title,
    style: CSS + (page.css ?? ''),
    noindex: true,
    body: html`<main id="main">${page.main}</main>`,
  })
}

/**
 * What a browser is shown where no published site answers (a site not published yet, an
 * address no site has, or no longer has): plain words and the way to the dashboard, in the
 * published sites' own style, never indexed.
 */
export function sendNoSitePage(reply: FastifyReply, page: { title: string; text: string; dashboard: string }) {
  const main = html`<h1>${page.title}</h1><p>${page.text}</p><p><a href="${page.dashboard}">Open the dashboard</a></p>`
  return sendPage(reply, 404, plainSitePage({ lang: 'en', title: page.title, main }))
}
