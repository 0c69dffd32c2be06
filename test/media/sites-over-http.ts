import { request as httpRequest } from 'node:http'
import { expect } from 'vitest'
import { RELEASES_KEEPING_MEDIA } from '../../src/domain/media/purge.ts'
import { newId } from '../../src/infra/crypto.ts'
import type { App } from '../../src/app.ts'
import { eventually } from '../helpers/polling.ts'
import type { TestAccount } from '../rest/helpers.ts'

export interface Answer {
  status: number
  type: string
  json: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * What the media tests do to a listening app over real HTTP: /v1 calls, uploads, publishing a
 * site and reading its own host (node:http lets the Host header be set, as a browser sends it).
 */
export function sitesOverHttp(app: App) {
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const baseUrl = `http://127.0.0.1:${port}`

  async function api(account: TestAccount, method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...account.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined }
  }

  async function upload(account: TestAccount, bytes: Buffer, filename: string, type = 'image/jpeg', alt?: string) {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename)
    if (alt) form.append('alt', alt)
    const res = await fetch(`${baseUrl}/v1/media`, { method: 'POST', headers: account.headers, body: form })
    expect(res.status).toBe(201)
    return (await res.json()) as { id: string; url: string; variants: Array<{ width: number; format: string; url: string }> }
  }

  function onHost(
    host: string,
    path: string,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      })
      req.on('error', reject)
      req.end()
    })
  }

  async function hostOf(account: TestAccount, siteId: string): Promise<string> {
    return (await api(account, 'GET', `/v1/sites/${siteId}`)).json.subdomain as string
  }

  /** Rebuilds the site and waits until its host serves the new release; the build's id. */
  async function publish(account: TestAccount, siteId: string): Promise<string> {
    const build = await api(account, 'POST', `/v1/sites/${siteId}/rebuild`)
    expect(build.status).toBe(202)
    let status = ''
    await eventually(async () => {
      status = (await api(account, 'GET', `/v1/sites/${siteId}/builds/${build.json.id}`)).json.status
      expect(status).toMatch(/succeeded|failed/)
    }, 30_000)
    expect(status).toBe('succeeded')
    await eventually(async () => expect(app.liveSites.byHost(await hostOf(account, siteId))?.buildId).toBe(build.json.id), 5000)
    return build.json.id as string
  }

  async function siteWithPage(account: TestAccount, name: string) {
    const site = (await api(account, 'POST', '/v1/sites', { name })).json
    const page = (await api(account, 'POST', `/v1/sites/${site.id}/pages`, { path: '/', locale: 'en', title: name, description: 'Bread.' }))
      .json
    return { site, page }
  }

  /** As many releases newer than the site's others as purging keeps: the older ones' photos may go. */
  async function newerReleases(siteId: string): Promise<void> {
    const later = Array.from({ length: RELEASES_KEEPING_MEDIA }, (_, i) => ({
      id: newId('bld'),
      site_id: siteId,
      status: 'succeeded' as const,
      created_at: new Date(Date.now() + 1000 * (i + 1)),
    }))
    await app.db.insertInto('builds').values(later).execute()
  }

  return { baseUrl, api, upload, onHost, hostOf, publish, siteWithPage, newerReleases }
}
