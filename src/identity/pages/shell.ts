import type { FastifyReply } from 'fastify'
import { requestTranslator } from '../../domain/i18n/request.ts'
import { languageSwitch } from '../../domain/i18n/switch.ts'
import { documentShell, html, sendPage as sendHtml, type SafeHtml } from '../../infra/html.ts'

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}form{margin:1.5rem 0}label{display:block;margin:.75rem 0 .25rem}
input[type=text],input[type=email],select{width:100%;max-width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{padding:.5rem 1rem;font-size:1rem;margin:.75rem .5rem 0 0}.error{color:#a00}.muted{color:#555;font-size:.9rem}
code{font-size:1.1rem;letter-spacing:.1em}ul{padding-left:1.25rem}
.languages{display:flex;gap:.25rem;margin:2rem 0 0}.languages button{margin:0;padding:.25rem .5rem;font-size:.9rem;background:none;border:1px solid #94a3b8;border-radius:4px;color:#1a1a1a}
.languages .current{font-weight:700;border-color:#1a1a1a}`

/** A page's title and content; `sendPage` writes it into the shell in the request's language. */
export interface IdentityPage {
  title: string
  body: SafeHtml
}

export function page(title: string, body: SafeHtml): IdentityPage {
  return { title, body }
}

/** Sends a page of the sign-in room: no scripts, inline style only, so it works with JavaScript off; the language switch on top. */
export function sendPage(reply: FastifyReply, status: number, content: IdentityPage) {
  // An error met before the hooks ran (a body that does not fit the schema) has no translator yet.
  const t = reply.request.t ?? requestTranslator(reply.request, null)
  return sendHtml(
    reply,
    status,
    documentShell({
      lang: t.lang,
      title: `${content.title} · ${t.t('brand.name')}`,
      style: STYLE,
      noindex: true,
      body: html`<main>
<h1>${content.title}</h1>
${content.body}
</main>
<footer>${languageSwitch(t, reply.formToken(), reply.request.url)}</footer>`,
    }),
  )
}

export function hidden(fields: Record<string, string | undefined>): SafeHtml {
  const present = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined)
  return html`${present.map(([name, value], i) => html`${i ? '\n' : ''}<input type="hidden" name="${name}" value="${value}">`)}`
}

export function errorLine(message: string | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``
}
