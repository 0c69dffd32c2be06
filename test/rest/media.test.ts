import createClient from 'openapi-fetch'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { storeMedia } from '../../src/domain/media/media.ts'
import { buildTestApp } from '../helpers/app.ts'
import { HEIC, imageAs, PDF, phonePhoto, pngBomb, SVG, transparentPng } from '../helpers/images.ts'
import { makeTeam } from '../teams/helpers.ts'
import type { paths } from './generated/v1.ts'
import { afterAuditFlush, makeAccount } from './helpers.ts'

// The media library of /v1 (DESIGN.md 14) through the client generated from the OpenAPI
// document, over real HTTP, with real image files made by sharp; on both database drivers.
const { app, config } = await buildTestApp()
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const baseUrl = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''

type Media = paths['/v1/media/{id}']['get']['responses'][200]['content']['application/json']
const clientOf = (headers: Record<string, string>) => createClient<paths>({ baseUrl, headers })

/** The multipart form a browser or `curl -F` sends. */
function form(file: Buffer, filename: string, type: string, alt?: string): FormData {
  const data = new FormData()
  data.append('file', new Blob([new Uint8Array(file)], { type }), filename)
  if (alt !== undefined) data.append('alt', alt)
  return data
}

async function upload(
  headers: Record<string, string>,
  file: Buffer,
  filename: string,
  type = 'image/jpeg',
  extra: Record<string, string> = {},
) {
  const client = clientOf(headers)
  return client.POST('/v1/media', {
    body: form(file, filename, type) as never,
    bodySerializer: (body) => body as unknown as FormData,
    headers: extra,
  })
}

/** Fetches a served file from the listening service (the resource names the configured BASE_URL). */
const served = (url: string, headers: Record<string, string> = {}) => fetch(url.replace(config.BASE_URL, baseUrl), { headers })

describe('uploading to the media library', () => {
  it('turns a phone photo upright, drops its GPS and camera, and makes the variants; the same bytes again are the same item', async () => {
    const owner = await makeAccount(app, 'pro')
    const photo = await phonePhoto()
    const before = await sharp(photo).metadata()
    expect(before.orientation).toBe(6)
    expect(before.exif?.toString('latin1')).toContain('TestCam')

    const res = await upload(owner.headers, photo, 'IMG_2034.jpg')
    expect(res.response.status).toBe(201)
    const media = res.data as Media
    expect(res.response.headers.get('location')).toBe(`/v1/media/${media.id}`)
    expect(media).toMatchObject({
      filename: 'IMG_2034.jpg',
      content_type: 'image/jpeg',
      width: 700,
      height: 1000,
      bytes: photo.length,
      alt: '',
      used_by: [],
    })
    expect(media.variants.map((v) => `${v.width}.${v.format}`)).toEqual([
      '320.webp',
      '320.jpeg',
      '640.webp',
      '640.jpeg',
      '700.webp',
      '700.jpeg',
    ])
    expect(media.url).toBe(media.variants.find((v) => v.width === 700 && v.format === 'jpeg')!.url)

    for (const variant of media.variants) {
      const file = await served(variant.url)
      expect(file.status).toBe(200)
      expect(file.headers.get('content-type')).toBe(`image/${variant.format}`)
      expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata()
      expect(meta).toMatchObject({ format: variant.format, width: variant.width, height: variant.height })
      // Upright (portrait), no EXIF at all (no GPS, no camera, no orientation left to apply), an sRGB profile.
      expect(meta.height).toBeGreaterThan(meta.width)
      expect(meta.exif).toBeUndefined()
      expect(meta.orientation).toBeUndefined()
      expect(meta.icc).toBeDefined()
      expect(meta.space).toBe('srgb')
    }
    const etag = (await served(media.url)).headers.get('etag')!
    expect(etag).toMatch(/^"med_/)
    expect((await served(media.url, { 'if-none-match': etag })).status).toBe(304)

    const again = await upload(owner.headers, photo, 'copy.jpg')
    expect(again.response.status).toBe(200)
    expect(again.data?.id).toBe(media.id)
    const listed = await clientOf(owner.headers).GET('/v1/media')
    expect(listed.data?.meta.total).toBe(1)
  })

  it('takes PNG with transparency (PNG variants), WebP, AVIF and GIF (JPEG variants), also as raw bytes', async () => {
    const owner = await makeAccount(app, 'pro')
    const client = clientOf(owner.headers)
    const logo = await client.POST('/v1/media', {
      params: { query: { filename: 'logo.png', alt: 'Our logo' } },
      body: (await transparentPng()) as never,
      bodySerializer: (body) => body as unknown as Buffer,
      headers: { 'content-type': 'image/png' },
    })
    expect(logo.response.status).toBe(201)
    expect(logo.data).toMatchObject({ filename: 'logo.png', alt: 'Our logo', content_type: 'image/png', width: 500, height: 300 })
    expect(logo.data?.variants.map((v) => `${v.width}.${v.format}`)).toEqual(['320.webp', '320.png', '500.webp', '500.png'])
    const png = await sharp(Buffer.from(await (await served(logo.data!.url)).arrayBuffer())).metadata()
    expect(png).toMatchObject({ format: 'png', hasAlpha: true })

    for (const format of ['webp', 'avif', 'gif'] as const) {
      const res = await upload(owner.headers, await imageAs(format), `picture.${format}`, `image/${format}`)
      expect(res.response.status, format).toBe(201)
      expect(res.data).toMatchObject({ content_type: `image/${format}`, width: 400, height: 300 })
      expect(res.data?.variants.map((v) => v.format)).toEqual(['webp', 'jpeg', 'webp', 'jpeg'])
    }
  })

  it('refuses what is not a supported, whole image with its documented problem, and stores nothing', async () => {
    const owner = await makeAccount(app, 'pro')
    const photo = await phonePhoto(1)
    const cases: Array<[string, Buffer, string, number, string, RegExp?]> = [
      ['zero bytes', Buffer.alloc(0), 'empty.jpg', 422, 'invalid_image', /empty/],
      ['a truncated JPEG', photo.subarray(0, Math.floor(photo.length / 2)), 'half.jpg', 422, 'invalid_image'],
      ['a PDF renamed .jpg', PDF, 'menu.jpg', 415, 'unsupported_media_type'],
      ['an SVG', SVG, 'logo.svg', 415, 'unsupported_media_type', /PNG/],
      ['a HEIC photo', HEIC, 'IMG_0001.HEIC', 415, 'unsupported_media_type', /JPEG/],
      ['a 60-megapixel PNG bomb', pngBomb(), 'bomb.png', 413, 'payload_too_large', /megapixels/],
      ['21 MB', Buffer.concat([photo, Buffer.alloc(21 * 1024 * 1024)]), 'huge.jpg', 413, 'payload_too_large'],
    ]
    for (const [what, bytes, name, status, code, detail] of cases) {
      const res = await upload(owner.headers, bytes, name)
      expect(res.response.status, what).toBe(status)
      expect(res.response.headers.get('content-type'), what).toMatch(/^application\/problem\+json/)
      expect(res.error, what).toMatchObject({ status, code })
      if (detail) expect((res.error as { detail: string }).detail, what).toMatch(detail)
    }
    // The raw body decides too: a PDF sent as image/jpeg.
    const raw = await fetch(`${baseUrl}/v1/media`, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'image/jpeg' },
      body: new Uint8Array(PDF),
    })
    expect(raw.status).toBe(415)
    const none = await app.db.selectFrom('media').select('id').where('account_id', '=', owner.accountId).execute()
    expect(none).toEqual([])
    expect(await app.db.selectFrom('media_files').select('key').where('key', 'like', 'media/%').execute()).not.toContainEqual(undefined)
  })

  it('refuses an upload past the plan’s storage with plan_limit naming the plan that holds more', async () => {
    const owner = await makeAccount(app, 'pro')
    // 25 GB is pro's storage: rows standing for nearly all of it.
    const row = (i: number, bytes: number) => ({
      id: `med_fill${i}xxxxxxxx`,
      account_id: owner.accountId,
      filename: `fill-${i}.jpg`,
      content_type: 'image/jpeg',
      width: 10,
      height: 10,
      bytes: 1,
      stored_bytes: bytes,
      sha256: `fill-${i}-${owner.accountId}`,
      variants: '[]',
      created_by: null,
    })
    const gb = 1_000_000_000
    await app.db
      .insertInto('media')
      .values([...Array.from({ length: 24 }, (_, i) => row(i, gb)), row(24, gb - 2048)])
      .execute()
    const res = await upload(owner.headers, await phonePhoto(2), 'one-more.jpg')
    expect(res.response.status).toBe(403)
    expect(res.error).toMatchObject({ code: 'plan_limit' })
    expect((res.error as { detail: string }).detail).toMatch(/plan pro, which stores 25 GB .* Plan max stores 100 GB/)
    expect(await app.db.selectFrom('media').select('id').where('account_id', '=', owner.accountId).execute()).toHaveLength(25)

    // The dashboard's plans reach the same domain function: free stores 250 MB.
    const free = await makeAccount(app, 'free')
    await app.db
      .insertInto('media')
      .values({ ...row(99, 250_000_000 - 100), account_id: free.accountId, id: 'med_fillfreexxxx' })
      .execute()
    await expect(
      storeMedia(app.db, app.mediaStorage, { accountId: free.accountId, createdBy: null, bytes: await phonePhoto(3) }),
    ).rejects.toMatchObject({
      code: 'PLAN_LIMIT',
      message: expect.stringMatching(/plan free, which stores 250 MB .* Plan lite stores 1 GB/),
    })
  })
})

describe('the library as a resource', () => {
  it('lists newest first, changes alt and name, deletes; audited and counted against the hour', async () => {
    const owner = await makeAccount(app, 'pro')
    const client = clientOf(owner.headers)
    const first = (await upload(owner.headers, await phonePhoto(4), 'first.jpg')).data as Media
    const second = (await upload(owner.headers, await imageAs('png'), 'second.png', 'image/png')).data as Media
    const listed = await client.GET('/v1/media', { params: { query: { per_page: 1 } } })
    expect(listed.data?.data.map((m) => m.id)).toEqual([second.id])
    expect(listed.data?.meta).toEqual({ total: 2, page: 1, per_page: 1 })

    const got = await client.GET('/v1/media/{id}', { params: { path: { id: first.id } } })
    const etag = got.response.headers.get('etag')!
    const patched = await client.PATCH('/v1/media/{id}', {
      params: { path: { id: first.id } },
      body: { alt: 'A loaf of rye bread', filename: 'rye.jpg' },
      headers: { 'if-match': etag },
    })
    expect(patched.data).toMatchObject({ alt: 'A loaf of rye bread', filename: 'rye.jpg' })
    const stale = await client.PATCH('/v1/media/{id}', {
      params: { path: { id: first.id } },
      body: { alt: 'x' },
      headers: { 'if-match': etag },
    })
    expect(stale.response.status).toBe(412)
    const bad = await client.PATCH('/v1/media/{id}', { params: { path: { id: first.id } }, body: { width: 3 } as never })
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed' })

    const deleted = await client.DELETE('/v1/media/{id}', { params: { path: { id: first.id } } })
    expect(deleted.response.status).toBe(204)
    expect((await client.GET('/v1/media/{id}', { params: { path: { id: first.id } } })).response.status).toBe(404)
    expect((await served(first.url)).status).toBe(404)
    expect(await app.db.selectFrom('media_files').select('key').where('media_id', '=', first.id).execute()).toEqual([])
    expect(listed.response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/)

    await afterAuditFlush()
    const log = await client.GET('/v1/audit-log', { params: { query: { per_page: 100 } } })
    const operations = log.data?.data.map((r) => `${r.operation} ${r.status}`)
    expect(operations).toEqual(expect.arrayContaining(['media.upload 201', 'media.update 200', 'media.update 412', 'media.delete 204']))
  })

  it('keeps the total as items come, are removed while kept, come back and go', async () => {
    const owner = await makeAccount(app, 'pro')
    const client = clientOf(owner.headers)
    const total = async () => {
      const listed = (await client.GET('/v1/media')).data!.meta.total
      const { n } = await app.db
        .selectFrom('media')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', owner.accountId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow()
      expect(listed, 'the total counted afresh').toBe(Number(n))
      return listed
    }
    expect(await total()).toBe(0)
    const photo = await phonePhoto(7)
    const kept = (await upload(owner.headers, photo, 'kept.jpg')).data as Media
    const other = (await upload(owner.headers, await imageAs('png'), 'other.png', 'image/png')).data as Media
    expect(await total()).toBe(2)
    // Removed from the library while a release still shows it: kept, but no longer listed.
    await app.db.updateTable('media').set({ deleted_at: new Date() }).where('id', '=', kept.id).execute()
    expect(await total()).toBe(1)
    // The same bytes uploaded again bring the item back.
    expect((await upload(owner.headers, photo, 'kept-again.jpg')).data?.id).toBe(kept.id)
    expect(await total()).toBe(2)
    expect((await client.DELETE('/v1/media/{id}', { params: { path: { id: other.id } } })).response.status).toBe(204)
    expect(await total()).toBe(1)
  })

  it('replays an upload sent again with its Idempotency-Key', async () => {
    const owner = await makeAccount(app, 'pro')
    const photo = await phonePhoto(5)
    const one = await upload(owner.headers, photo, 'a.jpg', 'image/jpeg', { 'idempotency-key': 'upload-1' })
    const two = await upload(owner.headers, photo, 'a.jpg', 'image/jpeg', { 'idempotency-key': 'upload-1' })
    expect(two.response.status).toBe(201)
    expect(two.response.headers.get('idempotent-replayed')).toBe('true')
    expect(two.data?.id).toBe(one.data?.id)
    const other = await upload(owner.headers, await phonePhoto(6), 'a.jpg', 'image/jpeg', { 'idempotency-key': 'upload-1' })
    expect(other.error).toMatchObject({ status: 422, code: 'idempotency_key_reused' })
  })

  it('hides another account’s media (404), refuses viewers and plans without API writes', async () => {
    const team = await makeTeam(app, 'pro')
    const mine = (await upload(team.owner.api, await phonePhoto(7), 'mine.jpg')).data as Media
    const stranger = await makeAccount(app, 'pro')
    const theirs = clientOf(stranger.headers)
    expect((await theirs.GET('/v1/media/{id}', { params: { path: { id: mine.id } } })).response.status).toBe(404)
    expect((await theirs.PATCH('/v1/media/{id}', { params: { path: { id: mine.id } }, body: { alt: 'x' } })).response.status).toBe(404)
    expect((await theirs.DELETE('/v1/media/{id}', { params: { path: { id: mine.id } } })).response.status).toBe(404)
    expect((await theirs.GET('/v1/media')).data?.meta.total).toBe(0)

    const viewer = await upload(team.viewer.api, await phonePhoto(8), 'viewer.jpg')
    expect(viewer.error).toMatchObject({ status: 403, code: 'role_required' })
    const viewerDelete = await clientOf(team.viewer.api).DELETE('/v1/media/{id}', { params: { path: { id: mine.id } } })
    expect(viewerDelete.error).toMatchObject({ status: 403, code: 'role_required' })
    expect((await clientOf(team.viewer.api).GET('/v1/media')).data?.meta.total).toBe(1)
    expect((await upload(team.editor.api, await phonePhoto(9), 'editor.jpg')).response.status).toBe(201)

    const plus = await makeAccount(app, 'plus')
    expect((await upload(plus.headers, await phonePhoto(10), 'plus.jpg')).error).toMatchObject({ status: 403, code: 'plan_required' })
  })
})
