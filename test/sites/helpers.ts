import { eventually } from '../helpers/polling.ts'
import { expect } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { queueBuild, type Build } from '../../src/domain/sites/builds.ts'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createSite, type Site } from '../../src/domain/sites/sites.ts'
import { newId } from '../../src/infra/crypto.ts'
import type { SiteSettings } from '../../src/domain/sites/settings.ts'
import type { RenderPage } from '../../src/sites/render/index.ts'
import { englishPages, FIXTURE_LOCALES, germanPages } from '../fixtures/hosted/content.ts'

/** Starting the service on the embedded database and building a site takes a while on a busy machine. */
export const SETUP_TIMEOUT_MS = 180_000

export const FIXTURE_SETTINGS = {
  hosting: {
    description: 'A family bakery in the old town baking sourdough, rye and spelt bread since 1987.',
    ai_crawlers: { training: false },
    organization: {
      logo: 'https://bakery.example/logo.png',
      telephone: '+49 40 1234567',
      address: { street: 'Market Street 12', locality: 'Hamburg', postal_code: '20095', country: 'DE' },
    },
  },
} as SiteSettings

/**
 * Writes pages and their blocks through the domain repositories, as the REST API does; `raw`
 * stores block contents without the API's checks (content from before a check existed), so the
 * renderer's own escaping is what is tested.
 */
export async function addPages(app: FastifyInstance, site: Site, pages: RenderPage[], raw = false): Promise<void> {
  for (const p of pages) {
    const page = await createPage(app.db, site, { path: p.path, locale: p.locale, title: p.title, description: p.description })
    for (const [position, block] of p.blocks.entries()) {
      if (raw)
        await app.db
          .insertInto('blocks')
          .values({ id: newId('blk'), page_id: page.id, type: block.type, position, content: JSON.stringify(block.content) })
          .execute()
      else await insertBlock(app.db, page.id, { type: block.type, content: block.content })
    }
  }
}

/** The bakery site with an active domain, its pages in English and German. */
export async function bakerySite(
  app: FastifyInstance,
  options: { accountId: string; hostname?: string; settings?: SiteSettings; pages?: RenderPage[]; raw?: boolean },
): Promise<Site> {
  const site = await createSite(app.db, {
    name: 'Hansen Bakery',
    accountId: options.accountId,
    defaultLocale: 'en',
    locales: FIXTURE_LOCALES,
    settings: options.settings ?? FIXTURE_SETTINGS,
    ...(options.hostname ? { hostname: options.hostname } : {}),
  })
  const now = new Date()
  await addPages(app, site, options.pages ?? [...englishPages(now), ...germanPages(now)], options.raw)
  return site
}

/** Queues a build as POST /v1/sites/{id}/rebuild does and waits for the job to finish it. */
export async function buildSite(app: FastifyInstance, siteId: string, timeoutMs = 20_000): Promise<Build> {
  const { build } = await queueBuild(app.db, siteId)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const row = await app.db.selectFrom('builds').selectAll().where('id', '=', build.id).executeTakeFirstOrThrow()
    if (row.status === 'failed') return row
    if (row.status === 'succeeded') {
      // Serving learns of the new release by NOTIFY, a moment after the commit.
      const live = await app.db.selectFrom('sites').select(['live_build_id', 'slug']).where('id', '=', siteId).executeTakeFirstOrThrow()
      const domains = await app.db
        .selectFrom('domains')
        .select('hostname')
        .where('site_id', '=', siteId)
        .where('status', '=', 'active')
        .execute()
      // Its own domains, and its platform subdomain where the service gives one.
      const hosts = [...domains.map((d) => d.hostname), ...(app.config.SITES_DOMAIN ? [`${live.slug}.${app.config.SITES_DOMAIN}`] : [])]
      if (live.live_build_id === row.id)
        await eventually(async () => expect(hosts.every((host) => app.liveSites.byHost(host)?.buildId === row.id)).toBe(true))
      return row
    }
    expect(Date.now(), `build ${build.id} still ${row.status}`).toBeLessThan(deadline)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
