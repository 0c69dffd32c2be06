import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { deleteMedia, getMediaBytes, storeMedia } from '../../src/domain/media/media.ts'
import { buildTestApp } from '../helpers/app.ts'
import { purgeReleasedMedia } from '../../src/domain/media/purge.ts'
import { phonePhoto, pngBomb, transparentPng } from '../helpers/images.ts'
import { startS3Server } from '../helpers/s3-server.ts'
import { makeAccount } from '../rest/helpers.ts'
import { sitesOverHttp } from './sites-over-http.ts'

// The media library with its bytes in S3-compatible storage (MEDIA_S3_BUCKET), against an S3
// server on loopback: the same uploads, files and deletions as in the database.
const s3 = await startS3Server('media-test')
const { app, config } = await buildTestApp({ env: s3.env })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const baseUrl = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''
const { keysIn } = s3

describe('media in S3-compatible storage', () => {
  it('keeps the variants in the bucket, not the database, serves them, and deletes them with the item', async () => {
    expect(app.mediaStorage.kind).toBe('s3')
    const owner = await makeAccount(app, 'pro')
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(await phonePhoto())], { type: 'image/jpeg' }), 'bread.jpg')
    const res = await fetch(`${baseUrl}/v1/media`, { method: 'POST', headers: owner.headers, body: form })
    expect(res.status).toBe(201)
    const media = (await res.json()) as { id: string; url: string; variants: Array<{ url: string; width: number; format: string }> }
    expect(await keysIn(`media/${media.id}/`)).toEqual(
      ['320.jpg', '320.webp', '640.jpg', '640.webp', '700.jpg', '700.webp'].map((f) => `media/${media.id}/${f}`),
    )
    expect(await app.db.selectFrom('media_files').select('key').execute()).toEqual([])

    const file = await fetch(media.url.replace(config.BASE_URL, baseUrl))
    expect(file.status).toBe(200)
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata()
    expect(meta).toMatchObject({ width: 700, height: 1000, format: 'jpeg' })
    expect(meta.exif).toBeUndefined()

    const gone = await fetch(`${baseUrl}/v1/media/${media.id}`, { method: 'DELETE', headers: owner.headers })
    expect(gone.status).toBe(204)
    expect(await keysIn(`media/${media.id}/`)).toEqual([])
    expect(await getMediaBytes(app.db, app.mediaStorage, `media/${media.id}/700.jpg`)).toBeUndefined()
  })

  it('leaves nothing in the bucket when an upload is refused', async () => {
    const owner = await makeAccount(app, 'free')
    await app.db
      .insertInto('media')
      .values({
        id: 'med_fulls3xxxxxx',
        account_id: owner.accountId,
        filename: 'x.jpg',
        content_type: 'image/jpeg',
        width: 1,
        height: 1,
        bytes: 1,
        stored_bytes: 250_000_000,
        sha256: 'full',
        variants: '[]',
        created_by: null,
      })
      .execute()
    const before = await keysIn('media/')
    await expect(
      storeMedia(app.db, app.mediaStorage, { accountId: owner.accountId, createdBy: null, bytes: await phonePhoto(1) }),
    ).rejects.toMatchObject({ code: 'PLAN_LIMIT' })
    await expect(
      storeMedia(app.db, app.mediaStorage, { accountId: owner.accountId, createdBy: null, bytes: pngBomb() }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
    expect(await keysIn('media/')).toEqual(before)
    expect(await deleteMedia(app.db, app.mediaStorage, owner.accountId, 'med_nonexistent1')).toBeUndefined()
  })

  it('keeps the cuts made for sites (og:image, the logo’s icons) in the bucket, and purges them with the item', async () => {
    const sites = sitesOverHttp(app)
    const owner = await makeAccount(app, 'pro')
    const photo = await sites.upload(owner, await phonePhoto(30), 'window.jpg')
    const logo = await sites.upload(owner, await transparentPng(400, 200), 'logo.png', 'image/png')
    const { site, page } = await sites.siteWithPage(owner, 'Bucket Bakery')
    const block = (await sites.api(owner, 'POST', `/v1/pages/${page.id}/blocks`, { type: 'image', content: { media_id: photo.id } })).json
    expect((await sites.api(owner, 'PATCH', `/v1/sites/${site.id}`, { logo_media_id: logo.id })).status).toBe(200)
    await sites.publish(owner, site.id)

    expect(await keysIn(`media/${photo.id}/og-`)).toEqual([`media/${photo.id}/og-1200.jpg`])
    expect(await keysIn(`media/${logo.id}/icon-`)).toEqual([180, 192, 32, 512].map((size) => `media/${logo.id}/icon-${size}.png`))
    const host = await sites.hostOf(owner, site.id)
    const icon = await sites.onHost(host, `/_media/${logo.id}/icon-32.png`)
    expect(icon.status).toBe(200)
    expect(await sharp(icon.body).metadata()).toMatchObject({ width: 32, height: 32, format: 'png' })
    expect(await app.db.selectFrom('media_files').select('key').execute()).toEqual([])

    // Out of the draft and the library, then out of every release kept: its files leave the bucket.
    expect((await sites.api(owner, 'DELETE', `/v1/blocks/${block.id}`)).status).toBe(204)
    expect((await sites.api(owner, 'DELETE', `/v1/media/${photo.id}`)).status).toBe(204)
    expect(await keysIn(`media/${photo.id}/`)).toHaveLength(7)
    await sites.publish(owner, site.id)
    await sites.newerReleases(site.id)
    expect(await purgeReleasedMedia(app.db, app.mediaStorage, owner.accountId)).toBe(1)
    expect(await keysIn(`media/${photo.id}/`)).toEqual([])
    expect((await sites.onHost(host, `/_media/${photo.id}/og-1200.jpg`)).status).toBe(404)
    // The logo stays, icons and all.
    expect(await keysIn(`media/${logo.id}/icon-`)).toHaveLength(4)
  })
})
