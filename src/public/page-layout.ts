import { documentShell, html, type SafeHtml } from '../infra/html.ts'

// Dark text on white, links and buttons in a blue of 6.7:1 against white, focus ring in amber.
const STYLE = `*{box-sizing:border-box}body{margin:0;font:17px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
a{color:#1d4ed8}a:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
header,footer{background:#f1f5f9}header .in,footer .in,main{max-width:64rem;margin:0 auto;padding:.75rem 1rem}
header .in{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem}.brand{font-weight:700;color:#1a1a1a;text-decoration:none;margin-right:auto;padding:.5rem 0}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}nav a{display:inline-block;padding:.5rem .25rem}
h1{font-size:2.2rem;line-height:1.2;margin:2rem 0 1rem}h2{font-size:1.5rem;margin:2.5rem 0 1rem}h3{font-size:1.2rem;margin:0 0 .5rem}
.lead{font-size:1.2rem;max-width:44rem}.actions{display:flex;flex-wrap:wrap;gap:1rem;margin:1.5rem 0}
.button{display:inline-block;padding:.75rem 1.5rem;border-radius:8px;border:2px solid #1d4ed8;font-weight:600;text-decoration:none;min-width:10rem;text-align:center}
.primary{background:#1d4ed8;color:#fff}.secondary{background:#fff;color:#1d4ed8}
.grid{list-style:none;padding:0;margin:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(11.5rem,1fr))}
.card{border:1px solid #cbd5e1;border-radius:10px;padding:1rem}.card ul{padding-left:1.1rem;margin:.5rem 0 0}
.price{font-size:1.5rem;font-weight:700;margin:0}.muted{color:#475569}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f1f5f9;padding:.75rem;overflow-x:auto;border-radius:6px}
table{border-collapse:collapse;display:block;overflow-x:auto}th,td{border:1px solid #cbd5e1;padding:.3rem .5rem;text-align:left;vertical-align:top}
footer{margin-top:3rem}footer p{margin:.25rem 0}`

export interface PublicPage {
  title: string
  description: string
  /** Absolute address the page is canonical at. */
  canonical: string
  body: SafeHtml
  /** More rules for this page's own text, after the layout's. */
  style?: string
}

/** A page of the service's own public room: landmarks, a skip link, the service's navigation, inline CSS and no script. */
export function publicPage(page: PublicPage): SafeHtml {
  return documentShell({
    lang: 'en',
    title: page.title,
    style: STYLE + (page.style ?? ''),
    head: html`
<meta name="description" content="${page.description}">
<link rel="canonical" href="${page.canonical}">
<link rel="icon" href="data:,">
<meta property="og:type" content="website"><meta property="og:title" content="${page.title}"><meta property="og:description" content="${page.description}"><meta property="og:url" content="${page.canonical}">`,
    body: html`<a class="skip" href="#main">Skip to the content</a>
<header><div class="in">
<a class="brand" href="/">Web Presence</a>
<nav aria-label="Service"><ul><li><a href="/#plans">Plans</a></li><li><a href="/docs">Docs</a></li><li><a href="/openapi.json">API</a></li><li><a href="/signin">Sign in</a></li></ul></nav>
</div></header>
<main id="main">
${page.body}
</main>
<footer><div class="in">
<p>Web Presence: websites, SEO and an AI sales assistant, with a REST API, MCP and webhooks.</p>
<p><a href="/docs">Documentation</a> · <a href="/openapi.json">OpenAPI description</a> · <a href="/api/pricing">Price list (JSON)</a></p>
</div></footer>`,
  })
}
