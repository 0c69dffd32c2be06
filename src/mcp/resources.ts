import type { FastifyError } from 'fastify'
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
  type McpServer,
  type ReadResourceResult,
} from '@modelcontextprotocol/server'
import { listPageBlocks, blockView } from '../domain/sites/blocks.ts'
import type { TypedBlock } from '../domain/sites/block-content.ts'
import { domainView, listSiteDomains, type DomainView } from '../domain/sites/domains.ts'
import { getAccountPage, listSitePages } from '../domain/sites/pages.ts'
import { getAccountSite, listAccountSites } from '../domain/sites/sites.ts'
// The hosted sites' own Markdown of the blocks, so a page reads the same here as in its published alternate.
import { mdText as md, pageBlocksMarkdown } from '../domain/sites/page-markdown.ts'
import { classify, errors } from '../errors.ts'
import { forAccount, type AccountCall } from './account.ts'
import type { Caller, CallerLease } from './tool.ts'
import { previewUrl } from '../domain/sites/views.ts'
import { subdomainHost } from '../domain/sites/subdomains.ts'

const MARKDOWN = 'text/markdown'
/** How many sites and pages resources/list names; the tools page through the rest. */
const LISTED = { limit: 100, offset: 0 }

/** A failed read as the protocol says it: an unknown resource is "not found", other refusals carry their code and message. */
function readFailure(uri: string, error: unknown): Error {
  const { status, code, detail } = classify(error as FastifyError)
  if (status === 404) return new ResourceNotFoundError(uri)
  return new ProtocolError(ProtocolErrorCode.InvalidRequest, `${code}: ${detail}`)
}

/** A domain with its state: the TXT record still to publish, or why its last check failed. */
function domainLine(domain: DomainView): string {
  const line = `- ${domain.hostname}${domain.primary ? ' (primary)' : ''}: ${domain.status}`
  if (domain.status === 'active') return line
  const record = `TXT \`${domain.verification.name}\` = \`${domain.verification.value}\``
  return domain.failure_reason
    ? `${line}, ${domain.failure_reason.code}: ${md(domain.failure_reason.detail)} (${record})`
    : `${line} (${record})`
}

async function read(lease: CallerLease, uri: URL, render: (call: AccountCall) => Promise<string | undefined>): Promise<ReadResourceResult> {
  try {
    const text = await lease.use((caller) =>
      forAccount(caller, 'read_resource', 'read', async (call) => {
        const found = await render(call)
        if (found === undefined) throw new errors.notFound('No such resource in this account')
        return found
      }),
    )
    return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text }] }
  } catch (error) {
    throw readFailure(uri.href, error)
  }
}

/** The listing is empty for an agent nobody has claimed: it has no account to show. */
async function listed<T>(lease: CallerLease, list: (accountId: string) => Promise<T[]>): Promise<T[]> {
  return lease.auth.accountId ? list(lease.auth.accountId) : []
}

/**
 * Each site and page of the account as a Markdown resource: `wps://sites/{id}` (the site with
 * its pages) and `wps://pages/{id}` (the page with its blocks, as its published alternate reads).
 */
export function registerResources(server: McpServer, app: Caller['app'], lease: CallerLease) {
  const { db } = app
  const base = app.config.BASE_URL

  server.registerResource(
    'site',
    new ResourceTemplate('wps://sites/{id}', {
      list: async () => ({
        resources: (await listed(lease, async (accountId) => (await listAccountSites(db, accountId, LISTED)).items)).map((site) => ({
          uri: `wps://sites/${site.id}`,
          name: site.name,
          mimeType: MARKDOWN,
        })),
      }),
    }),
    {
      title: 'Site',
      description:
        'A site of the account with its status, domain, locales, pages and domains (with the TXT record to publish, or why verification failed), as Markdown',
      mimeType: MARKDOWN,
    },
    (uri, variables) =>
      read(lease, uri, async (call) => {
        const site = await getAccountSite(call.db, call.accountId, String(variables['id']))
        if (!site) return undefined
        const [{ items: pages }, { items: domains }] = await Promise.all([
          listSitePages(call.db, site.id, LISTED),
          listSiteDomains(call.db, site.id, LISTED),
        ])
        return (
          [
            `# ${md(site.name)}`,
            [
              `- id: ${site.id}`,
              `- status: ${site.status}`,
              `- domain: ${site.domain ?? 'none'}`,
              `- subdomain: ${subdomainHost(site.slug, app.config.SITES_DOMAIN)}`,
              `- locales: ${site.locales.join(', ')} (default ${site.default_locale})`,
              `- preview: ${previewUrl(base, site.id)}`,
              `- published: ${site.published_at?.toISOString() ?? 'never'}`,
            ].join('\n'),
            '## Pages',
            pages.length
              ? pages.map((page) => `- [${md(page.title)}](wps://pages/${page.id}) ${page.locale} \`${page.path}\``).join('\n')
              : 'No pages yet.',
            '## Domains',
            domains.length ? domains.map((domain) => domainLine(domainView(domain))).join('\n') : 'No domains yet.',
          ].join('\n\n') + '\n'
        )
      }),
  )

  server.registerResource(
    'page',
    new ResourceTemplate('wps://pages/{id}', { list: undefined }),
    {
      title: 'Page',
      description: 'A page of the account with its blocks, as Markdown (links resolved against the preview)',
      mimeType: MARKDOWN,
    },
    (uri, variables) =>
      read(lease, uri, async (call) => {
        const page = await getAccountPage(call.db, call.accountId, String(variables['id']))
        if (!page) return undefined
        const { items } = await listPageBlocks(call.db, page.id, { limit: 1000, offset: 0 })
        // Site-relative links point into the preview, as they do on the published site's own host.
        const preview = previewUrl(base, page.site_id)
        const absolute = (href: string) => new URL(href.startsWith('/') ? `.${href}` : href, new URL(`.${page.path}`, preview)).href
        const { h1, body } = pageBlocksMarkdown(
          items.map((block) => blockView(block) as TypedBlock),
          page.locale,
          absolute,
        )
        const heading = h1 ?? `# ${md(page.title)}`
        const about = `- id: ${page.id}\n- site: wps://sites/${page.site_id}\n- path: \`${page.path}\` (${page.locale})\n- title: ${md(page.title)}`
        return (
          [heading, page.description ? `> ${page.description.replace(/\s+/g, ' ')}` : '', about, ...body].filter(Boolean).join('\n\n') +
          '\n'
        )
      }),
  )
}
