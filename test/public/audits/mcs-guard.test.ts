import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startBrowserGuard } from '../../../src/infra/browser-guard.ts'
import { localProvider } from '../../../src/public/audits/mcs/providers.ts'
import { chromePath, haveBrowser } from '../../helpers/browser.ts'
import { cleanUpAfter } from '../../helpers/cleanup.ts'
import { onPostgres } from '../../helpers/database.ts'
import { rawConnection } from '../../helpers/raw-http.ts'

/** An HTTP server on loopback that records every connection and request made to it. */
async function fake(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const requests: string[] = []
  let connections = 0
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    answer(req, res)
  })
  server.on('connection', () => connections++)
  server.on('upgrade', (req, socket) => {
    requests.push(`UPGRADE ${req.url}`)
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanUpAfter(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { port: (server.address() as AddressInfo).port, requests, connections: () => connections }
}

// The audited page, allowed as the audited host only, names loopback, the cloud metadata address
// and a redirect to a private address in every way a page can: none of them may be reached.
function auditedPage(privatePort: number): string {
  const inside = `http://127.0.0.1:${privatePort}`
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Guarded</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${inside}/style.css">
<script src="http://localhost:${privatePort}/script.js"></script></head>
<body><h1>A page that reaches inside</h1>
<img src="${inside}/pixel.png" alt="pixel" width="1" height="1">
<img src="http://169.254.169.254/latest/meta-data/iam.png" alt="metadata" width="1" height="1">
<img src="/redirect" alt="redirected" width="1" height="1">
<iframe src="${inside}/frame" title="frame"></iframe>
<script>
  const report = (what, outcome) => navigator.sendBeacon('/report?' + what + '=' + outcome)
  for (const [what, url] of [['loopback', '${inside}/api'], ['metadata', 'http://169.254.169.254/latest/meta-data/'], ['redirect', '/redirect']]) {
    fetch(url, { mode: 'no-cors' }).then(() => report(what, 'answered'), () => report(what, 'failed'))
  }
  try { new WebSocket('ws://127.0.0.1:${privatePort}/socket') } catch {}
</script></body></html>`
}

describe.runIf(haveBrowser && !onPostgres)('local Lighthouse behind the address guard', () => {
  it('reaches the audited page, and no loopback, metadata or redirected private address', { timeout: 180_000 }, async () => {
    const inside = await fake((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('secret'))
    const reports: string[] = []
    const audited = await fake((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x')
      if (path.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(auditedPage(inside.port))
      if (path.pathname === '/redirect') return res.writeHead(302, { location: `http://127.0.0.1:${inside.port}/redirected` }).end()
      if (path.pathname === '/report') reports.push(path.search.slice(1))
      res.writeHead(204).end()
    })

    const provider = localProvider(chromePath, { allowPrivateNetworks: false })
    const report = await provider.run(`http://127.0.0.1:${audited.port}/`, ['127.0.0.1'])

    expect(report.lighthouse_version).toMatch(/^13\./)
    expect(audited.requests).toContain('GET /')
    expect(audited.requests).toContain('GET /redirect')
    expect(inside.requests).toEqual([])
    expect(inside.connections()).toBe(0)
    // What the page's own script saw: every request into the network failed.
    for (const what of ['loopback', 'metadata', 'redirect']) expect(reports, what).toContain(`${what}=failed`)
    expect(reports.filter((r) => r.endsWith('=answered'))).toEqual([])
  })
})

describe('the address guard', () => {
  it('tunnels to the pinned origin only, and refuses loopback, metadata, private, IP literals and other ports', async () => {
    const pinnedSite = await fake((_req, res) => res.end('pinned'))
    const inside = await fake((_req, res) => res.end('secret'))
    const guard = await startBrowserGuard({
      allowPrivateNetworks: false,
      pinned: { host: 'audited.example', port: pinnedSite.port, addresses: ['127.0.0.1'] },
    })
    cleanUpAfter(() => guard.close())
    const proxyPort = Number(/127\.0\.0\.1:(\d+)/.exec(guard.chromeFlags[0]!)![1])

    const plain = await rawConnection(proxyPort)
    const answer = await plain.send(
      `GET http://audited.example:${pinnedSite.port}/ HTTP/1.1\r\nHost: audited.example:${pinnedSite.port}\r\n\r\n`,
    )
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('pinned')
    plain.destroy()

    for (const target of [
      `127.0.0.1:${inside.port}`,
      `localhost:${inside.port}`,
      '169.254.169.254:80',
      '10.0.0.1:443',
      '[::1]:443',
      `audited.example:${inside.port}`,
    ]) {
      const connection = await rawConnection(proxyPort)
      expect((await connection.send(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`)).status, target).toBe(403)
      connection.destroy()
    }
    const redirected = await rawConnection(proxyPort)
    await expect(redirected.send(`GET http://127.0.0.1:${inside.port}/redirected HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)).rejects.toThrow(
      /before a whole response/,
    )
    expect(inside.connections()).toBe(0)
    expect(guard.refused).toHaveLength(7)
  })
})
