import { documentShell, html, type SafeHtml } from '../infra/html.ts'

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}form{margin:1.5rem 0}label{display:block;margin:.75rem 0 .25rem}
input[type=text],input[type=email],select{width:100%;max-width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{padding:.5rem 1rem;font-size:1rem;margin:.75rem .5rem 0 0}.error{color:#a00}.muted{color:#555;font-size:.9rem}
code{font-size:1.1rem;letter-spacing:.1em}ul{padding-left:1.25rem}`

/** A whole page: no scripts, inline style only, so it works with JavaScript off. */
export function page(title: string, body: SafeHtml): SafeHtml {
  return documentShell({
    lang: 'en',
    title: `${title} · Web Presence`,
    style: STYLE,
    noindex: true,
    body: html`<main>
<h1>${title}</h1>
${body}
</main>`,
  })
}

export function hidden(fields: Record<string, string | undefined>): SafeHtml {
  const present = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined)
  return html`${present.map(([name, value], i) => html`${i ? '\n' : ''}<input type="hidden" name="${name}" value="${value}">`)}`
}

export function errorLine(message: string | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``
}
