import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { expectLighthouseAtLeast95, haveChrome } from '../helpers/lighthouse.ts'
import { makeAccount } from '../rest/helpers.ts'
import { englishPages } from '../fixtures/hosted/content.ts'
import { bakerySite, buildSite } from './helpers.ts'

describe.skipIf(!haveChrome || onPostgres)('Lighthouse on a published page', () => {
  it('scores at least 95 in performance, accessibility, best practices and SEO', { timeout: 180_000 }, async () => {
    const { app } = await buildTestApp({ env: { BASE_URL: 'http://service.test' } })
    const account = await makeAccount(app)
    // The home page without its photo: the fixture has no image files to serve.
    const [home, ...rest] = englishPages(new Date())
    const hero = home!.blocks[0]!
    const page = {
      ...home!,
      blocks: [hero.type === 'hero' ? { ...hero, content: { ...hero.content, image: undefined } } : hero, ...home!.blocks.slice(1)],
    }
    const site = await bakerySite(app, { accountId: account.accountId, hostname: 'localhost', pages: [page, ...rest] })
    expect((await buildSite(app, site.id)).status).toBe('succeeded')
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    await expectLighthouseAtLeast95(`http://localhost:${port}/`)
  })
})
