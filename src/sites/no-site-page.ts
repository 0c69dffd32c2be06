import type { FastifyReply, FastifyRequest } from 'fastify'
import { html, raw, sendPage } from '../infra/html.ts'
import { CSS } from './render/style.ts'

/** A person's browser asks for a page; an API client or a script gets the problem document. */
export function wantsPage(request: FastifyRequest): boolean {
  return request.headers.accept?.includes('text/html') === true
}

/**
 * What a browser is shown where no published site answers (a site not published yet, an
 * address no site has, or no longer has): plain words and the way to the dashboard, in the
 * published sites' own style, never indexed.
 */
export function sendNoSitePage(reply: FastifyReply, page: { title: string; text: string; dashboard: string }) {
  const body = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${page.title}</title><style>${raw(CSS)}</style></head><body><main id="main"><h1>${page.title}</h1><p>${page.text}</p><p><a href="${page.dashboard}">Open the dashboard</a></p></main></body></html>`
  return sendPage(reply, 404, body)
}
