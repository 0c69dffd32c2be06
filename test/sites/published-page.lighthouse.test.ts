import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { storeMedia } from '../../src/domain/media/media.ts'
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

  it('scores at least 95 with three photos of the library: a hero, an image and a gallery', { timeout: 180_000 }, async () => {
    const { app } = await buildTestApp({ env: { BASE_URL: 'http://service.test' } })
    const account = await makeAccount(app, 'pro')
    // Blurred noise has about the texture of a photo: it compresses about as a photo does.
    const photo = async (seed: number) =>
      (
        await storeMedia(app.db, app.mediaStorage, {
          accountId: account.accountId,
          createdBy: null,
          filename: `bread-${seed}.jpg`,
          alt: `Bread, photo ${seed}`,
          bytes: await sharp({
            create: {
              width: 2400,
              height: 1600,
              channels: 3,
              background: '#888',
              noise: { type: 'gaussian', mean: 120 + seed, sigma: 40 },
            },
          })
            .blur(1.5)
            .jpeg({ quality: 85 })
            .toBuffer(),
        })
      ).media.id
    const [window, loaf, bun] = [await photo(1), await photo(2), await photo(3)]
    const [home, ...rest] = englishPages(new Date())
    const hero = home!.blocks[0]!
    const page = {
      ...home!,
      blocks: [
        hero.type === 'hero' ? { ...hero, content: { ...hero.content, image: { media_id: window } } } : hero,
        { type: 'image', content: { media_id: loaf, caption: 'Rye, this morning' } },
        ...home!.blocks.slice(1),
        { type: 'gallery', content: { heading: 'From the oven', images: [{ media_id: loaf }, { media_id: bun, caption: 'Buns' }] } },
      ],
    } as typeof home
    const site = await bakerySite(app, { accountId: account.accountId, hostname: 'localhost', pages: [page!, ...rest] })
    expect((await buildSite(app, site.id)).status).toBe('succeeded')
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    const served = await (await fetch(`http://localhost:${port}/`)).text()
    expect(served.match(/<picture>/g)).toHaveLength(4)
    await expectLighthouseAtLeast95(`http://localhost:${port}/`)
  })
})
