import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, extname, join, normalize } from 'node:path'
import yauzl from 'yauzl'
import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'
import { phonePhoto } from '../helpers/images.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite } from '../sites/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { makeTeam } from '../teams/helpers.ts'
import { expectProblem, formBrowser, httpClient } from './http.ts'

// The export of an account (DESIGN.md 19) over real HTTP: asked for on /v1 and in the dashboard,
// made by the job, mailed, downloaded through its signed link, unpacked, and its static site
// served by a plain static file server.
const smtp = await startSmtpServer()
const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, RATE_LIMIT_FACTOR: '10' } })
const team = await makeTeam(app, 'pro')
const owner = httpClient(base, team.owner.api.authorization)
const site = await bakerySite(app, { accountId: team.accountId, hostname: 'export-bakery.example' })
expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })
const consent = { version: CONSENT_VERSION, digest: 'a'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
await insertLead(app.db, app.keyring, {
  siteId: site.id,
  sessionId: null,
  email: 'ana@example.com',
  name: '=HYPERLINK("x")',
  note: 'Two "rye" loaves, please',
  consent,
  source: 'contact_form',
})

/** Reads every entry of a zip into memory. */
function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error) return reject(error)
      const entries = new Map<string, Buffer>()
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (err, stream) => {
          if (err) return reject(err)
          const chunks: Buffer[] = []
          stream.on('data', (c: Buffer) => chunks.push(c))
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks))
            file.readEntry()
          })
        })
      })
      file.on('end', () => resolve(entries))
      file.on('error', reject)
      file.readEntry()
    })
  })
}

/** The plainest static file server: a path is a file of the folder, or a folder's index.html. */
async function staticServer(root: string): Promise<{ url: string; server: Server }> {
  const types: Record<string, string> = { '.html': 'text/html', '.xml': 'application/xml', '.txt': 'text/plain', '.md': 'text/markdown' }
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '')
    let file = join(root, path)
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html')
      const body = readFileSync(file)
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body)
    } catch {
      res.writeHead(404).end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanUpAfter(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}`, server }
}

async function readyExport(id: string) {
  let ready: Record<string, any> = {} // eslint-disable-line @typescript-eslint/no-explicit-any
  await eventually(async () => {
    const res = await owner('GET', `/v1/account/exports/${id}`)
    expect(res.status, res.text).toBe(200)
    ready = res.json
    expect(ready['status']).toBe('ready')
  }, 60_000)
  return ready
}

describe('exporting the account', () => {
  it('makes one zip with the content as REST shows it, a static site any server serves, leads, conversations, members and audit log', async () => {
    const started = await owner('POST', '/v1/account/exports')
    expect(started.status, started.text).toBe(202)
    expect(started.json).toEqual({ id: expect.stringMatching(/^exp_/), status: 'pending' })
    expect(started.headers.get('location')).toBe(`/v1/account/exports/${started.json.id}`)
    const ready = await readyExport(started.json.id)
    expect(ready).toEqual({
      id: started.json.id,
      status: 'ready',
      created_at: expect.any(String),
      size_bytes: expect.any(Number),
      download_url: expect.stringMatching(new RegExp(`^${base}/app/exports/${started.json.id}/download\\?t=`)),
      expires_at: expect.any(String),
    })
    const days = (Date.parse(ready['expires_at']) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.9)
    expect(days).toBeLessThanOrEqual(7)
    // The link is mailed to who asked (among the other mails the owner gets: the lead's notification).
    const linkIn = (mail: Parameters<typeof mailText>[0]) => /(http:\/\/\S+\/download\?t=\S+)/.exec(mailText(mail))?.[1]
    await eventually(async () => expect(smtp.to(team.owner.email).some(linkIn)).toBe(true), 10_000)
    const mailedLink = smtp.to(team.owner.email).map(linkIn).find(Boolean)
    expect(mailedLink?.startsWith(`${base}/app/exports/${started.json.id}/download?t=`)).toBe(true)
    expect((await fetch(mailedLink!, { headers: { cookie: team.owner.cookie }, redirect: 'manual' })).status).toBe(200)

    // The signed link gives the zip to an owner of the account, signed in.
    const download = await fetch(ready['download_url'], { headers: { cookie: team.owner.cookie }, redirect: 'manual' })
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('application/zip')
    const zip = Buffer.from(await download.arrayBuffer())
    expect(zip.length).toBe(ready['size_bytes'])
    const files = await unzip(zip)
    const text = (name: string) => files.get(name)?.toString('utf8') ?? expect.fail(`${name} is missing`)
    const folder = `sites/${site.slug}`

    // The content as /v1 answers it.
    const pages = JSON.parse(text(`${folder}/pages.json`)) as Array<{
      id: string
      path: string
      locale: string
      title: string
      blocks: unknown[]
    }>
    const restPages = (await owner('GET', `/v1/sites/${site.id}/pages?per_page=100`)).json.data
    expect(pages.map(({ blocks: _blocks, ...page }) => page)).toEqual(restPages)
    for (const page of pages) expect(page.blocks).toEqual((await owner('GET', `/v1/pages/${page.id}/blocks?per_page=100`)).json.data)
    expect(JSON.parse(text(`${folder}/site.json`))).toEqual((await owner('GET', `/v1/sites/${site.id}`)).json)
    expect(JSON.parse(text(`${folder}/domains.json`))).toEqual((await owner('GET', `/v1/sites/${site.id}/domains`)).json.data)
    expect(JSON.parse(text('leads.json'))).toEqual((await owner('GET', '/v1/leads')).json.data)
    const leadsCsv = text('leads.csv')
    expect(leadsCsv.split('\r\n')[0]).toContain('"email"')
    expect(leadsCsv).toContain('"ana@example.com"')
    expect(leadsCsv).toContain(`"'=HYPERLINK(""x"")"`)
    expect(leadsCsv).toContain('"Two ""rye"" loaves, please"')
    expect(
      JSON.parse(text('members.json'))
        .map((m: { email: string }) => m.email)
        .sort(),
    ).toEqual([team.owner.email, team.editor.email, team.viewer.email].sort())
    expect(JSON.parse(text('audit-log.json')).map((r: { operation: string }) => r.operation)).toContain('account.exports.create')
    expect(text('audit-log.csv').split('\r\n')[0]).toBe(
      '"id","at","user_id","token_id","client_id","operation","method","path","status","request_id","ip"',
    )
    expect(JSON.parse(text('conversations.json'))).toEqual([])
    expect(text('conversations.csv')).toBe('"session_id","site_id","locale","at","role","text"\r\n')

    // The static site, unpacked and served by a plain static file server: every page is there.
    const root = mkdtempSync(join(tmpdir(), 'export-'))
    for (const [name, body] of files) {
      if (name.endsWith('/')) continue
      mkdirSync(dirname(join(root, name)), { recursive: true })
      writeFileSync(join(root, name), body)
    }
    const served = await staticServer(join(root, folder, 'static'))
    expect(pages.length).toBeGreaterThan(3)
    for (const page of pages) {
      const address = page.locale === 'en' ? page.path : `/${page.locale}${page.path}`
      const res = await fetch(`${served.url}${address}`)
      expect(res.status, address).toBe(200)
      const html = await res.text()
      expect(html).toContain('<!doctype html>'.slice(0, 9))
      expect(html).toContain(page.title.replaceAll('&', '&amp;').split(' – ')[0]!)
      // Every link of a page to another page of the site is found on the static server too.
      for (const [, href] of html.matchAll(/<a [^>]*href="(\/[^"#?]*)"/g)) {
        if (href!.startsWith('/_wps/')) continue
        expect((await fetch(`${served.url}${href}`)).status, `${address} links to ${href}`).toBe(200)
      }
    }
    expect((await fetch(`${served.url}/sitemap.xml`)).status).toBe(200)
    expect((await fetch(`${served.url}/robots.txt`)).status).toBe(200)
  })

  it('holds the media library’s photos, and the static site carries every image and font its pages show', async () => {
    const photoTeam = await makeTeam(app, 'pro')
    const api = httpClient(base, photoTeam.owner.api.authorization)
    const photoSite = await bakerySite(app, { accountId: photoTeam.accountId, hostname: 'export-photos.example' })
    const upload = async (seed: number, name: string) => {
      const form = new FormData()
      form.append('file', new Blob([new Uint8Array(await phonePhoto(seed))], { type: 'image/jpeg' }), name)
      const res = await fetch(`${base}/v1/media`, {
        method: 'POST',
        headers: { authorization: photoTeam.owner.api.authorization },
        body: form,
      })
      expect(res.status).toBe(201)
      return (await res.json()) as { id: string; filename: string; variants: Array<{ url: string; width: number; format: string }> }
    }
    const shown = await upload(1, 'loaves.jpg')
    const unused = await upload(60, 'oven.jpeg')
    const home = (await api('GET', `/v1/sites/${photoSite.id}/pages`)).json.data.find(
      (p: { path: string; locale: string }) => p.path === '/' && p.locale === 'en',
    )
    const block = await api('POST', `/v1/pages/${home.id}/blocks`, { type: 'image', content: { media_id: shown.id, alt: 'Fresh loaves' } })
    expect(block.status, block.text).toBe(201)
    expect(await buildSite(app, photoSite.id)).toMatchObject({ status: 'succeeded' })

    const started = httpClient(base, photoTeam.owner.api.authorization)
    const asked = await started('POST', '/v1/account/exports')
    expect(asked.status).toBe(202)
    let ready: Record<string, any> = {} // eslint-disable-line @typescript-eslint/no-explicit-any
    await eventually(async () => {
      ready = (await started('GET', `/v1/account/exports/${asked.json.id}`)).json
      expect(ready['status']).toBe('ready')
    }, 60_000)
    const download = await fetch(ready['download_url'], { headers: { cookie: photoTeam.owner.cookie } })
    const files = await unzip(Buffer.from(await download.arrayBuffer()))

    // The library, as /v1 lists it, and each photo in its largest size under the name it was uploaded with.
    const library = JSON.parse(files.get('media/media.json')!.toString('utf8')) as Array<{ id: string }>
    expect(library.map((m) => m.id).sort()).toEqual([shown.id, unused.id].sort())
    expect(library).toEqual((await api('GET', '/v1/media?per_page=100')).json.data)
    for (const [media, name] of [
      [shown, 'loaves.jpg'],
      [unused, 'oven.jpg'],
    ] as const) {
      const largest = media.variants.filter((v) => v.format === 'jpeg').sort((a, b) => b.width - a.width)[0]!
      const body = files.get(`media/${media.id}/${name}`) ?? expect.fail(`media/${media.id}/${name} is missing`)
      expect(Buffer.compare(body, Buffer.from(await (await fetch(largest.url.replace(app.config.BASE_URL, base))).arrayBuffer()))).toBe(0)
    }

    // The static site, served by a plain server: every image and stylesheet font its pages name is found.
    const root = mkdtempSync(join(tmpdir(), 'export-photos-'))
    for (const [name, body] of files) {
      if (name.endsWith('/')) continue
      mkdirSync(dirname(join(root, name)), { recursive: true })
      writeFileSync(join(root, name), body)
    }
    const served = await staticServer(join(root, `sites/${photoSite.slug}`, 'static'))
    const page = await (await fetch(`${served.url}/`)).text()
    expect(page).toContain('alt="Fresh loaves"')
    const named = [
      ...[...page.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]!),
      ...[...page.matchAll(/srcset="([^"]+)"/g)].flatMap((m) => m[1]!.split(',').map((c) => c.trim().split(' ')[0]!)),
      ...[...page.matchAll(/url\(([^)]+)\)/g)].map((m) => m[1]!.replace(/^["']|["']$/g, '')),
    ].map((href) => href.replaceAll('&amp;', '&'))
    expect(named.some((href) => href.includes(`_media/${shown.id}/`))).toBe(true)
    let photosCompared = 0
    for (const href of named) {
      if (/^(https?:|data:)/.test(href)) continue
      // What the published site serves (its preview), the static copy serves too, the same bytes.
      const live = await fetch(new URL(href, `${base}/s/${photoSite.id}/`))
      if (live.status !== 200) continue
      if (href.includes('_media/')) photosCompared++
      const res = await fetch(new URL(href, `${served.url}/`))
      expect(res.status, `the home page shows ${href}`).toBe(200)
      expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), Buffer.from(await live.arrayBuffer())), href).toBe(0)
    }
    expect(photosCompared, 'the photo’s variants the page names').toBeGreaterThan(1)
    // Only what the pages show goes into the static copy: the unused photo is in media/ alone.
    expect([...files.keys()].some((name) => name.includes(`static/_media/${unused.id}/`))).toBe(false)
  })

  it('the link works for this account’s owners only; other accounts and members are refused', async () => {
    const started = (await owner('POST', '/v1/account/exports')).json
    const ready = await readyExport(started.id)
    const link = ready['download_url'] as string
    // Signed out: to the sign-in page, and back here after.
    const anonymous = await fetch(link, { redirect: 'manual' })
    expect(anonymous.status).toBe(303)
    expect(anonymous.headers.get('location')).toMatch(/^\/signin\?return_to=/)
    // An editor of the account is not an owner.
    expect((await fetch(link, { headers: { cookie: team.editor.cookie }, redirect: 'manual' })).status).toBe(403)
    // Another account's owner, with the link.
    const otherTeam = await makeTeam(app, 'pro')
    expect((await fetch(link, { headers: { cookie: otherTeam.owner.cookie }, redirect: 'manual' })).status).toBe(404)
    // A link changed by a single character, or made for another export, does not open.
    const tampered = link.replace(/t=(.)/, (_m, c: string) => `t=${c === 'A' ? 'B' : 'A'}`)
    expect((await fetch(tampered, { headers: { cookie: team.owner.cookie }, redirect: 'manual' })).status).toBe(404)
    const otherExport = link.replace(started.id, 'exp_0000000000000000')
    expect((await fetch(otherExport, { headers: { cookie: team.owner.cookie }, redirect: 'manual' })).status).toBe(404)

    const stranger = httpClient(base, otherTeam.owner.api.authorization)
    expectProblem(await stranger('GET', `/v1/account/exports/${started.id}`), 404, 'not_found')
    expectProblem(await httpClient(base, team.editor.api.authorization)('POST', '/v1/account/exports'), 403, 'role_required')
    expectProblem(await owner('GET', '/v1/account/exports/nope'), 400, 'validation_failed')
    const free = await makeAccount(app, 'free')
    expectProblem(await httpClient(base, free.headers.authorization)('POST', '/v1/account/exports'), 403, 'plan_required')
  })

  it('the dashboard asks for an export without JavaScript and shows its link once made', async () => {
    const browser = formBrowser(base, team.owner.cookie)
    const page = await browser.get('/app/your-data')
    expect(page.status).toBe(200)
    expect(page.body).toContain('Export everything')
    const asked = await browser.post('/app/your-data/exports')
    expect([asked.status, asked.location]).toEqual([303, '/app/your-data?done=export-requested'])
    expect((await browser.get('/app/your-data?done=export-requested')).body).toContain('Your export is being made')
    await eventually(async () => expect((await browser.get('/app/your-data')).body).toContain('Download the zip'), 60_000)
    const href = /href="([^"]+)" download>Download the zip/.exec((await browser.get('/app/your-data')).body)![1]!.replaceAll('&amp;', '&')
    const res = await fetch(`${base}${href}`, { headers: { cookie: team.owner.cookie } })
    expect(res.status).toBe(200)
    expect((await unzip(Buffer.from(await res.arrayBuffer()))).has('README.txt')).toBe(true)
    // Only owners see the page.
    expect((await formBrowser(base, team.viewer.cookie).get('/app/your-data')).status).toBe(403)
  })
})
