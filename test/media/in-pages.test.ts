import * as cheerio from 'cheerio'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { purgeReleasedMedia } from '../../src/domain/media/purge.ts'
import { buildTestApp } from '../helpers/app.ts'
import { phonePhoto, transparentPng } from '../helpers/images.ts'
import { makeAccount } from '../rest/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { sitesOverHttp } from './sites-over-http.ts'

// Photos of the media library in pages (DESIGN.md 14): media_id on image and hero blocks, the
// gallery block, the logo with its icons, og:image, the in-use refusal and what releases keep;
// over real HTTP (the REST API, the site's own host), on both database drivers.
const { app } = await buildTestApp()
await app.listen({ port: 0, host: '127.0.0.1' })
const { api, upload, onHost, hostOf, publish, siteWithPage, newerReleases } = sitesOverHttp(app)

describe('photos of the library in blocks', () => {
  it('takes media_id on hero, image and gallery blocks and refuses an id the library does not hold', async () => {
    const owner = await makeAccount(app, 'pro')
    const stranger = await makeAccount(app, 'pro')
    const photo = await upload(owner, await phonePhoto(15), 'bread.jpg', 'image/jpeg', 'A loaf of rye bread')
    const theirs = await upload(stranger, await phonePhoto(30), 'theirs.jpg')
    const { page } = await siteWithPage(owner, 'Media Bakery')

    const hero = await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, {
      type: 'hero',
      content: { heading: 'Fresh bread', image: { media_id: photo.id, alt: '' } },
    })
    expect(hero.status, JSON.stringify(hero.json)).toBe(201)
    expect(hero.json.content.image).toEqual({ media_id: photo.id, alt: '' })

    const refusals: Array<[string, unknown]> = [
      ['an unknown id', { type: 'image', content: { media_id: 'med_doesnotexist1' } }],
      ['another account’s photo', { type: 'image', content: { media_id: theirs.id } }],
      [
        'a gallery with another account’s photo',
        { type: 'gallery', content: { images: [{ media_id: photo.id }, { media_id: theirs.id }] } },
      ],
      ['both an address and a photo', { type: 'image', content: { media_id: photo.id, src: 'https://example.com/a.jpg', alt: '' } }],
      ['neither', { type: 'image', content: { alt: 'nothing' } }],
      ['an empty gallery', { type: 'gallery', content: { images: [] } }],
      ['25 photos', { type: 'gallery', content: { images: Array.from({ length: 25 }, () => ({ media_id: photo.id })) } }],
    ]
    for (const [what, body] of refusals) {
      const res = await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, body)
      expect(res.status, what).toBe(400)
      expect(res.type, what).toMatch(/^application\/problem\+json/)
      expect(res.json.code, what).toBe('invalid_block_content')
    }
    const unknown = await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, refusals[0]![1])
    const foreign = await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, refusals[1]![1])
    // The same words whether the photo is nobody's or another account's.
    expect(foreign.json.detail).toBe(unknown.json.detail.replace('med_doesnotexist1', theirs.id))

    // A change names a photo the same way; PATCH of an existing block is checked too.
    const patched = await api(owner, 'PATCH', `/v1/blocks/${hero.json.id}`, {
      content: { heading: 'Fresh bread', image: { media_id: theirs.id } },
    })
    expect(patched.json.code).toBe('invalid_block_content')
    const logo = await api(owner, 'PATCH', `/v1/sites/${page.site_id}`, { logo_media_id: theirs.id })
    expect(logo.status).toBe(400)
    expect(logo.json.code).toBe('validation_failed')
  })

  it('publishes <picture> with srcset, sizes, width and height, the first image eager and the rest lazy; og:image and the logo’s icons', async () => {
    const owner = await makeAccount(app, 'pro')
    const hero = await upload(owner, await phonePhoto(40), 'hero.jpg', 'image/jpeg', 'Our shop window')
    const loaf = await upload(owner, await phonePhoto(60), 'loaf.jpg', 'image/jpeg', 'A loaf')
    const bun = await upload(owner, await phonePhoto(80), 'bun.jpg')
    const logo = await upload(owner, await transparentPng(600, 200), 'logo.png', 'image/png')
    const { site, page } = await siteWithPage(owner, 'Picture Bakery')
    const blocks = [
      { type: 'hero', content: { heading: 'Fresh bread', image: { media_id: hero.id } } },
      { type: 'image', content: { media_id: loaf.id, alt: 'Rye, just out of the oven', caption: 'Rye' } },
      {
        type: 'gallery',
        content: {
          heading: 'Our bread',
          images: [
            { media_id: loaf.id, caption: 'Loaf' },
            { media_id: bun.id, alt: 'A bun' },
          ],
        },
      },
    ]
    for (const block of blocks) expect((await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, block)).status).toBe(201)
    const withLogo = await api(owner, 'PATCH', `/v1/sites/${site.id}`, { logo_media_id: logo.id })
    expect(withLogo.status).toBe(200)
    expect(withLogo.json.logo_media_id).toBe(logo.id)

    await publish(owner, site.id)
    const host = await hostOf(owner, site.id)
    const res = await onHost(host, '/')
    expect(res.status).toBe(200)
    const $ = cheerio.load(res.body.toString('utf8'))
    const pictures = $('main picture')
    expect(pictures).toHaveLength(4)
    const imgs = pictures
      .find('img')
      .toArray()
      .map((img) => $(img))
    // Upright 700 × 1000, the library's alt text where the block gives none.
    expect(imgs.map((img) => [img.attr('width'), img.attr('height')])).toEqual(Array(4).fill(['700', '1000']))
    expect(imgs.map((img) => img.attr('alt'))).toEqual(['Our shop window', 'Rye, just out of the oven', 'A loaf', 'A bun'])
    expect(imgs[0]!.attr('fetchpriority')).toBe('high')
    expect(imgs[0]!.attr('loading')).toBeUndefined()
    for (const img of imgs.slice(1)) expect(img.attr('loading')).toBe('lazy')
    for (const img of imgs) {
      expect(img.attr('decoding')).toBe('async')
      expect(img.attr('sizes')).toBeTruthy()
      expect(img.attr('srcset')).toMatch(
        /^_media\/med_[^ ]+\/320\.jpg 320w, _media\/med_[^ ]+\/640\.jpg 640w, _media\/med_[^ ]+\/700\.jpg 700w$/,
      )
    }
    const webp = pictures.first().find('source[type="image/webp"]')
    expect(webp.attr('srcset')).toContain(`_media/${hero.id}/320.webp 320w`)
    // Every address a page names is served on the site's host.
    const named = [
      ...new Set(
        pictures
          .find('img, source')
          .toArray()
          .flatMap((el) => ($(el).attr('srcset') ?? '').split(', ').map((s) => s.split(' ')[0]!)),
      ),
    ]
    for (const path of named) {
      const file = await onHost(host, `/${path}`)
      expect(file.status, path).toBe(200)
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    }
    // No GPS or camera in what the page shows.
    const shown = await sharp((await onHost(host, `/${named[0]}`)).body).metadata()
    expect(shown.exif).toBeUndefined()

    // og:image: the first image cut to 1200 × 630, absolute, served.
    const og = $('meta[property="og:image"]').attr('content')!
    expect(og).toMatch(new RegExp(`/_media/${hero.id}/og-1200\\.jpg$`))
    const ogFile = await onHost(host, new URL(og).pathname)
    expect(ogFile.status).toBe(200)
    expect(await sharp(ogFile.body).metadata()).toMatchObject({ width: 1200, height: 630, format: 'jpeg' })

    // The logo heads the page; the favicon and touch icon are square PNGs made from it.
    const brand = $('header .brand img')
    expect(brand.attr('src')).toBe(`_media/${logo.id}/600.png`)
    expect(brand.attr('height')).toBe('48')
    expect(brand.attr('width')).toBe('144')
    const icon = $('link[rel="icon"][sizes="32x32"]').attr('href')!
    const touch = $('link[rel="apple-touch-icon"]').attr('href')!
    expect(icon).toBe(`_media/${logo.id}/icon-32.png`)
    for (const [href, size] of [
      [icon, 32],
      [touch, 180],
    ] as const) {
      const file = await onHost(host, `/${href}`)
      expect(file.status).toBe(200)
      expect(await sharp(file.body).metadata()).toMatchObject({ width: size, height: size, format: 'png', hasAlpha: true })
    }
    // The resource never lists the files made for sites as variants.
    const listed = await api(owner, 'GET', `/v1/media/${hero.id}`)
    expect(listed.json.variants.map((v: { url: string }) => v.url).join(' ')).not.toMatch(/og-|icon-/)
    expect(listed.json.used_by).toEqual([{ page_id: page.id, block_id: expect.stringMatching(/^blk_/) }])

    // The Markdown alternate names the largest variant.
    const markdown = (await onHost(host, '/index.md')).body.toString('utf8')
    expect(markdown).toMatch(new RegExp(`!\\[Rye, just out of the oven\\]\\(<https?://${host}(:\\d+)?/_media/${loaf.id}/700\\.jpg>\\)`))
  })
})

describe('deleting photos that pages show', () => {
  it('refuses while a draft or a logo shows it (409 media_in_use naming the page); a release keeps showing it, then it is purged', async () => {
    const owner = await makeAccount(app, 'pro')
    const photo = await upload(owner, await phonePhoto(100), 'kept.jpg')
    const logo = await upload(owner, await transparentPng(300, 300), 'logo.png', 'image/png')
    const { site, page } = await siteWithPage(owner, 'Deleting Bakery')
    const block = (await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, { type: 'image', content: { media_id: photo.id } })).json
    await api(owner, 'PATCH', `/v1/sites/${site.id}`, { logo_media_id: logo.id })

    const inUse = await api(owner, 'DELETE', `/v1/media/${photo.id}`)
    expect(inUse.status).toBe(409)
    expect(inUse.type).toMatch(/^application\/problem\+json/)
    expect(inUse.json.code).toBe('media_in_use')
    expect(inUse.json.detail).toContain(page.id)
    const logoInUse = await api(owner, 'DELETE', `/v1/media/${logo.id}`)
    expect(logoInUse.json).toMatchObject({ status: 409, code: 'media_in_use' })
    expect(logoInUse.json.detail).toContain(`the logo of ${site.id}`)

    const first = await publish(owner, site.id)
    const host = await hostOf(owner, site.id)
    // Taken out of the draft and the logo removed, it may go: out of the library at once.
    expect((await api(owner, 'DELETE', `/v1/blocks/${block.id}`)).status).toBe(204)
    expect((await api(owner, 'PATCH', `/v1/sites/${site.id}`, { logo_media_id: null })).json.logo_media_id).toBeNull()
    expect((await api(owner, 'DELETE', `/v1/media/${photo.id}`)).status).toBe(204)
    expect((await api(owner, 'GET', `/v1/media/${photo.id}`)).status).toBe(404)
    expect((await api(owner, 'GET', '/v1/media')).json.data.map((m: { id: string }) => m.id)).toEqual([logo.id])
    // …and no block may name it any more.
    expect((await api(owner, 'POST', `/v1/pages/${page.id}/blocks`, { type: 'image', content: { media_id: photo.id } })).status).toBe(400)

    // The live release still shows it.
    const page1 = cheerio.load((await onHost(host, '/')).body.toString('utf8'))
    const src = page1('main picture img').attr('src')!
    expect(src).toBe(`_media/${photo.id}/700.jpg`)
    expect((await onHost(host, `/${src}`)).status).toBe(200)

    // A new release without it: the old one can still be rolled back to, so the photo is kept.
    await publish(owner, site.id)
    expect((await onHost(host, `/${src}`)).status).toBe(404)
    expect(await purgeReleasedMedia(app.db, app.mediaStorage, owner.accountId)).toBe(0)
    expect(await app.db.selectFrom('media').select('id').where('id', '=', photo.id).executeTakeFirst()).toBeDefined()
    const rollback = await api(owner, 'POST', `/v1/sites/${site.id}/rollback`, { build_id: first })
    expect(rollback.status).toBe(200)
    await eventually(async () => expect((await onHost(host, `/${src}`)).status).toBe(200), 5000)

    // Once the release is neither live nor among the newest kept, the photo goes, rows and files.
    await publish(owner, site.id)
    await newerReleases(site.id)
    expect(await purgeReleasedMedia(app.db, app.mediaStorage, owner.accountId)).toBe(1)
    expect(await app.db.selectFrom('media').select('id').where('id', '=', photo.id).executeTakeFirst()).toBeUndefined()
    expect(await app.db.selectFrom('media_files').select('key').where('media_id', '=', photo.id).execute()).toEqual([])
    // The logo, still in the library, is kept.
    expect((await api(owner, 'GET', `/v1/media/${logo.id}`)).status).toBe(200)
  })
})
