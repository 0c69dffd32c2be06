import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { loadPricing, type Pricing } from '../domain/accounts/plans.ts'
import { normaliseHostname } from '../domain/sites/sites.ts'
import { errors } from '../errors.ts'
import { html, sendStaticPage, staticPage, type SafeHtml } from '../infra/html.ts'
import { publicPage } from './page-layout.ts'

/** "€0", "€9", "€86.40": whole euros without cents. */
function euros(cents: number): string {
  return `€${cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2)}`
}

/** "250 MB", "1 GB": the media library's storage as the price list gives it, in megabytes. */
export function storageText(megabytes: number): string {
  return megabytes >= 1000 ? `${+(megabytes / 1000).toFixed(1)} GB` : `${megabytes} MB`
}

function plans(pricing: Pricing) {
  return html`<ul class="grid">${pricing.plans.map(
    (plan) => html`<li class="card">
<h3 id="plan-${plan.id}">${plan.name}</h3>
<p class="price">${plan.monthly_price_cents === 0 ? 'Free' : html`${euros(plan.monthly_price_cents)}<span class="muted"> a month</span>`}</p>
${plan.yearly_price_cents > 0 ? html`<p class="muted">or ${euros(plan.yearly_price_cents)} a year</p>` : html`<p class="muted">no card needed</p>`}
<ul>${plan.features.map((feature) => html`<li>${feature}</li>`)}<li>${storageText(plan.storage_mb)} for photos</li></ul>
${plan.monthly_price_cents > 0 ? html`<p><a href="/app/billing?plan=${plan.id}">Choose ${plan.name}<span class="sr-only"> plan</span></a></p>` : ''}
</li>`,
  )}</ul>
<h3>Add-ons</h3>
<ul>${pricing.add_ons.map((addOn) => html`<li><strong>${addOn.name}</strong> (${euros(addOn.monthly_price_cents)} a month): ${addOn.description}</li>`)}</ul>
<p class="muted">${pricing.vat_note} Paying yearly saves ${pricing.yearly_discount_percent}%.</p>`
}

/** The front door: what the service does, the plans from the price list, and the ways in. */
export function landingHtml(config: Pick<Config, 'BASE_URL'>, pricing: Pricing): SafeHtml {
  return publicPage({
    title: 'Web Presence: build, publish and grow your website',
    description:
      'Build a fast, accessible website, publish it on your own subdomain or domain, check its SEO and let an AI sales assistant answer visitors. Start free.',
    canonical: `${config.BASE_URL}/`,
    body: html`<h1>Your website, published in minutes and found by people and AI</h1>
<p class="lead">Web Presence builds fast, accessible websites from simple blocks and publishes them on a subdomain of their own at once, or on your domain. It checks your pages for search engines and AI answers, and can add a sales assistant that answers visitors and takes their leads.</p>
<div class="actions">
<a class="button primary" href="/app/start">Start free</a>
<a class="button secondary" href="/signin">Sign in</a>
</div>
<p class="muted">Starting free signs you in with a one-time code sent to your email address, with no password, and opens the editor on your first site.</p>

<section aria-labelledby="what">
<h2 id="what">What it does</h2>
<ul class="grid">
<li class="card"><h3>Build and publish</h3><p>Pages from blocks (hero, text, images, features, FAQ, calls to action, contact form, testimonials) in up to three languages, rebuilt and live in seconds, with every earlier version a click away.</p></li>
<li class="card"><h3>Be found</h3><p>Every page ships with its title, description, canonical address, structured data, sitemap, robots.txt and llms.txt, and our own SEO, AEO and GEO audit tells you what to improve.</p></li>
<li class="card"><h3>Turn visitors into leads</h3><p>Contact forms and an optional AI sales assistant that answers from your own pages, books appointments and hands over to your team.</p></li>
<li class="card"><h3>Automate it</h3><p>A REST API, an MCP server for AI agents and signed webhooks let your tools and agents build and publish sites too.</p></li>
</ul>
</section>

<section aria-labelledby="plans">
<h2 id="plans">Plans</h2>
${plans(pricing)}
</section>

<section aria-labelledby="developers">
<h2 id="developers">For developers and AI agents</h2>
<ul>
<li><a href="/openapi.json">The OpenAPI 3.1 description</a> of the REST API under /v1</li>
<li><a href="/docs">The documentation</a>: configuration, the API, MCP, webhooks, hosted sites and the assistant widget</li>
<li><a href="/api/pricing">The price list as JSON</a></li>
</ul>
</section>`,
  })
}

/**
 * GET / on the service's own host: the landing page, made once at start (the price list changes
 * only with a deploy). A request whose Host is a hosted site never reaches it (the hosted sites
 * answer first); any other host gets 404.
 */
export default async function landingRoute(app: FastifyInstance) {
  const page = staticPage(landingHtml(app.config, loadPricing()))
  const ownHosts = new Set([app.config.BASE_URL, app.config.API_URL].map((url) => normaliseHostname(new URL(url).hostname)))

  app.get('/', { config: { operation: 'public.landing' }, schema: { hide: true } }, async (request, reply) => {
    if (!ownHosts.has(normaliseHostname(request.hostname))) throw new errors.notFound('No site answers on this host')
    return sendStaticPage(request, reply, page)
  })
}
