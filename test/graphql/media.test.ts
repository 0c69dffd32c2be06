import { createServer } from 'node:http'
import { gql } from 'graphql-request'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { API_SCOPES } from '../../src/domain/accounts/api-tokens.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'
import { phonePhoto, SVG } from '../helpers/images.ts'
import { makeTeam } from '../teams/helpers.ts'
import { afterAuditFlush, clientFor, listeningApp, makeAccount, post } from './helpers.ts'

// The media library in GraphQL (DESIGN.md 14) through graphql-request over real HTTP: the same
// domain functions, fields and scopes as /v1/media; importMedia fetches through the SSRF-safe
// fetcher from a file server on loopback (which OUTBOUND_ALLOW_PRIVATE_NETWORKS lets it reach).
const { app, endpoint, origin } = await listeningApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })

const photo = await phonePhoto(120)
const files = createServer((request, response) => {
  if (request.url === '/IMG_2034.jpg') return void response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo)
  // A lying file: a name and type that say JPEG, the bytes of an SVG.
  if (request.url === '/fake.jpg') return void response.writeHead(200, { 'content-type': 'image/jpeg' }).end(SVG)
  if (request.url === '/cut.jpg')
    return void response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo.subarray(0, photo.length / 2))
  response.writeHead(404).end()
})
await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve))
cleanUpAfter(() => new Promise((resolve) => files.close(resolve)))
const filesUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}`

const MEDIA_FIELDS =
  'id filename contentType width height bytes alt url variants { width height format url } usedBy { pageId blockId } createdAt etag'
const IMPORT = gql`mutation ($input: ImportMediaInput!) { importMedia(input: $input) { ${MEDIA_FIELDS} } }`
const UPDATE = gql`mutation ($input: UpdateMediaInput!) { updateMedia(input: $input) { ${MEDIA_FIELDS} } }`
const DELETE = gql`mutation ($input: DeleteMediaInput!) { deleteMedia(input: $input) }`
const ONE = gql`query ($id: ID!) { media(id: $id) { ${MEDIA_FIELDS} } }`
const LIBRARY = gql`query ($first: Int) { mediaLibrary(first: $first) { totalCount nodes { id filename } pageInfo { hasNextPage } } }`

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Answer = { data?: any; errors?: Array<{ message: string; extensions: Record<string, unknown> }> }

describe('the media library in GraphQL', () => {
  it('imports from an https address, reads, lists, changes and deletes through the same functions as /v1/media', async () => {
    const owner = await makeAccount(app, 'pro')
    const client = clientFor(endpoint, owner)
    const imported = (await client.rawRequest(IMPORT, { input: { url: `${filesUrl}/IMG_2034.jpg`, alt: 'Rye bread' } })) as Answer
    expect(imported.errors).toBeUndefined()
    const media = imported.data.importMedia
    expect(media).toMatchObject({
      filename: 'IMG_2034.jpg',
      alt: 'Rye bread',
      contentType: 'image/jpeg',
      width: 700,
      height: 1000,
      usedBy: [],
    })
    expect(media.variants.map((v: { width: number; format: string }) => `${v.width}.${v.format}`)).toEqual([
      '320.webp',
      '320.jpeg',
      '640.webp',
      '640.jpeg',
      '700.webp',
      '700.jpeg',
    ])
    // Upright and without GPS, read back from the served variant.
    const served = await fetch(media.url.replace(app.config.BASE_URL, origin))
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata()
    expect(meta).toMatchObject({ width: 700, height: 1000 })
    expect(meta.exif).toBeUndefined()

    // The same resource as REST, ETag included.
    const rest = await fetch(`${origin}/v1/media/${media.id}`, { headers: owner.headers })
    expect(rest.headers.get('etag')).toBe(media.etag)
    const read = (await client.rawRequest(ONE, { id: media.id })) as Answer
    expect(read.data.media).toEqual(media)
    const listed = (await client.rawRequest(LIBRARY, { first: 5 })) as Answer
    expect(listed.data.mediaLibrary).toEqual({
      totalCount: 1,
      nodes: [{ id: media.id, filename: 'IMG_2034.jpg' }],
      pageInfo: { hasNextPage: false },
    })

    const changed = (await client.rawRequest(UPDATE, {
      input: { id: media.id, ifMatch: media.etag, alt: 'A rye loaf', filename: 'rye.jpg' },
    })) as Answer
    expect(changed.data.updateMedia).toMatchObject({ alt: 'A rye loaf', filename: 'rye.jpg' })
    const stale = (await client.rawRequest(UPDATE, { input: { id: media.id, ifMatch: media.etag, alt: 'x' } })) as Answer
    expect(stale.errors?.[0]?.extensions['code']).toBe('PRECONDITION_FAILED')
    const tooLong = (await client.rawRequest(UPDATE, { input: { id: media.id, alt: 'x'.repeat(301) } })) as Answer
    expect(tooLong.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'alt' })

    // In a block it cannot be deleted; taken out, it can.
    const site = (await post(endpoint, { query: 'mutation { createSite(input: {name: "GraphQL Bakery"}) { id } }' }, owner.headers)).body
      .data.createSite
    const page = (
      await post(
        endpoint,
        { query: 'mutation ($s: ID!) { createPage(input: {siteId: $s, path: "/", title: "Home"}) { id } }', variables: { s: site.id } },
        owner.headers,
      )
    ).body.data.createPage
    const block = (await client.rawRequest(gql`mutation ($input: AddBlockInput!) { addBlock(input: $input) { id } }`, {
      input: { pageId: page.id, type: 'gallery', content: { images: [{ media_id: media.id, caption: 'Rye' }] } },
    })) as Answer
    expect(block.errors).toBeUndefined()
    const unknown = (await client.rawRequest(gql`mutation ($input: AddBlockInput!) { addBlock(input: $input) { id } }`, {
      input: { pageId: page.id, type: 'image', content: { media_id: 'med_nothinghere1' } },
    })) as Answer
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'invalid_block_content' })
    const logo = (await client.rawRequest(gql`mutation ($input: UpdateSiteInput!) { updateSite(input: $input) { logoMediaId } }`, {
      input: { id: site.id, logoMediaId: media.id },
    })) as Answer
    expect(logo.data.updateSite).toEqual({ logoMediaId: media.id })

    const used = (await client.rawRequest(ONE, { id: media.id })) as Answer
    expect(used.data.media.usedBy).toEqual([{ pageId: page.id, blockId: block.data.addBlock.id }])
    const inUse = (await client.rawRequest(DELETE, { input: { id: media.id } })) as Answer
    expect(inUse.data.deleteMedia).toBeNull()
    expect(inUse.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'media_in_use' })
    expect(inUse.errors?.[0]?.message).toContain(page.id)
    await client.rawRequest(gql`mutation ($input: DeleteBlockInput!) { deleteBlock(input: $input) }`, {
      input: { id: block.data.addBlock.id },
    })
    await client.rawRequest(gql`mutation ($input: UpdateSiteInput!) { updateSite(input: $input) { logoMediaId } }`, {
      input: { id: site.id, logoMediaId: null },
    })
    const deleted = (await client.rawRequest(DELETE, { input: { id: media.id } })) as Answer
    expect(deleted.data.deleteMedia).toBe(media.id)
    const gone = (await client.rawRequest(ONE, { id: media.id })) as Answer
    expect(gone.errors?.[0]?.extensions['code']).toBe('NOT_FOUND')

    await afterAuditFlush()
    const log = await fetch(`${origin}/v1/audit-log?per_page=100`, { headers: owner.headers })
    const paths = ((await log.json()) as { data: Array<{ path: string; status: number }> }).data.map((r) => r.path)
    expect(paths).toContain('/v1/graphql')
  })

  it('refuses lying and broken files, another account’s media, viewers and tokens without the scope', async () => {
    const team = await makeTeam(app, 'pro')
    const client = clientFor(endpoint, { headers: team.owner.api })
    for (const [file, code, reason] of [
      ['fake.jpg', 'BAD_REQUEST', 'unsupported_media_type'],
      ['cut.jpg', 'BAD_USER_INPUT', 'invalid_image'],
      ['missing.jpg', 'BAD_USER_INPUT', 'unprocessable'],
    ] as const) {
      const res = (await client.rawRequest(IMPORT, { input: { url: `${filesUrl}/${file}` } })) as Answer
      expect(res.data.importMedia, file).toBeNull()
      expect(res.errors?.[0]?.extensions, file).toMatchObject({ code, reason })
    }
    const notHttps = (await client.rawRequest(IMPORT, { input: { url: 'ftp://example.com/a.jpg' } })) as Answer
    expect(notHttps.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' })
    expect(((await client.rawRequest(LIBRARY, {})) as Answer).data.mediaLibrary.totalCount).toBe(0)

    const mine = ((await client.rawRequest(IMPORT, { input: { url: `${filesUrl}/IMG_2034.jpg` } })) as Answer).data.importMedia
    const stranger = clientFor(endpoint, await makeAccount(app, 'pro'))
    expect(((await stranger.rawRequest(ONE, { id: mine.id })) as Answer).errors?.[0]?.extensions['code']).toBe('NOT_FOUND')
    expect(((await stranger.rawRequest(DELETE, { input: { id: mine.id } })) as Answer).errors?.[0]?.extensions['code']).toBe('NOT_FOUND')

    const viewer = clientFor(endpoint, { headers: team.viewer.api })
    expect(((await viewer.rawRequest(ONE, { id: mine.id })) as Answer).data.media.id).toBe(mine.id)
    const refused = (await viewer.rawRequest(DELETE, { input: { id: mine.id } })) as Answer
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'role_required' })

    const readOnly = clientFor(
      endpoint,
      await makeAccount(
        app,
        'pro',
        API_SCOPES.filter((s) => s !== 'write:pages'),
      ),
    )
    const scope = (await readOnly.rawRequest(IMPORT, { input: { url: `${filesUrl}/IMG_2034.jpg` } })) as Answer
    expect(scope.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'insufficient_scope' })
  })
})
