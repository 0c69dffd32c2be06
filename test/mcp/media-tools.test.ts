import { createServer } from 'node:http'
import type { Client } from '@modelcontextprotocol/client'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'
import { phonePhoto, SVG } from '../helpers/images.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { claimAgent, connect, registerAgent, textOf } from './helpers.ts'

// The media library's MCP tools through the official client: import_media fetches through the
// SSRF-safe fetcher (a file server on loopback, which OUTBOUND_ALLOW_PRIVATE_NETWORKS lets it
// reach in tests), then list, alt text, renaming and deletion.
const { app, base } = await startLiveApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })

const photo = await phonePhoto(20)
const files = createServer((request, response) => {
  if (request.url === '/IMG_2034.jpg') return void response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo)
  if (request.url === '/logo.svg') return void response.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG)
  response.writeHead(404).end()
})
await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve))
cleanUpAfter(() => new Promise((resolve) => files.close(resolve)))
const filesUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}`

type Structured = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function owner(email: string): Promise<{ client: Client; accountId: string }> {
  const { token, accountId } = await claimAgent(app, base, await registerAgent(base), email)
  await updateAccount(app.db, accountId, { plan: 'pro' })
  return { client: await connect(base, token), accountId }
}

describe('the media tools over MCP', () => {
  it('imports an image from a web address, lists it, changes its alt text and name, and deletes it', async () => {
    const alice = await owner('alice-media@example.com')
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await alice.client.callTool({ name, arguments: args })
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy()
      return result.structuredContent as Structured
    }
    const imported = await call('import_media', { url: `${filesUrl}/IMG_2034.jpg`, alt: 'Rye bread' })
    expect(imported).toMatchObject({ filename: 'IMG_2034.jpg', alt: 'Rye bread', width: 700, height: 1000, content_type: 'image/jpeg' })
    const variant = await fetch(imported['url'])
    const meta = await sharp(Buffer.from(await variant.arrayBuffer())).metadata()
    expect(meta).toMatchObject({ width: 700, height: 1000 })
    expect(meta.exif).toBeUndefined()

    const listed = await call('list_media', {})
    expect(listed['items'] ?? listed['data']).toHaveLength(1)
    const renamed = await call('update_media', { media_id: imported['id'], alt: 'A loaf of rye', filename: 'rye.jpg' })
    expect(renamed).toMatchObject({ alt: 'A loaf of rye', filename: 'rye.jpg' })

    const refused = await alice.client.callTool({ name: 'import_media', arguments: { url: `${filesUrl}/logo.svg` } })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/unsupported_media_type.*SVG/)
    const missing = await alice.client.callTool({ name: 'import_media', arguments: { url: `${filesUrl}/none.jpg` } })
    expect(textOf(missing)).toMatch(/404/)
    const ftp = await alice.client.callTool({ name: 'import_media', arguments: { url: 'ftp://example.com/a.jpg' } })
    expect(textOf(ftp)).toMatch(/https/)

    const bob = await owner('bob-media@example.com')
    const stranger = await bob.client.callTool({ name: 'delete_media', arguments: { media_id: imported['id'] } })
    expect(textOf(stranger)).toMatch(/not_found/)

    // The photo as the site's logo: set by update_site, kept from deletion while it is, then removed.
    const site = await call('create_site', { name: 'Rye & Co' })
    expect(await call('update_site', { site_id: site['id'], logo_media_id: imported['id'] })).toMatchObject({
      logo_media_id: imported['id'],
    })
    const bobsSite = await bob.client.callTool({ name: 'create_site', arguments: { name: 'Bob' } })
    const foreign = await bob.client.callTool({
      name: 'update_site',
      arguments: { site_id: (bobsSite.structuredContent as Structured)['id'], logo_media_id: imported['id'] },
    })
    expect(foreign.isError).toBe(true)
    expect(textOf(foreign)).toMatch(/validation_failed.*logo_media_id/)
    const malformed = await alice.client.callTool({ name: 'update_site', arguments: { site_id: site['id'], logo_media_id: 'logo.png' } })
    expect(malformed.isError).toBe(true)
    const inUse = await alice.client.callTool({ name: 'delete_media', arguments: { media_id: imported['id'] } })
    expect(textOf(inUse)).toMatch(/media_in_use.*logo/)
    expect(await call('update_site', { site_id: site['id'], logo_media_id: null })).toMatchObject({ logo_media_id: null })

    expect(await call('delete_media', { media_id: imported['id'] })).toEqual({ id: imported['id'], deleted: true })
    expect((await fetch(imported['url'])).status).toBe(404)
  })
})
