import { once } from 'node:events'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import { connect, isIP, type AddressInfo, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { createSafeFetcher, FetchError, type Resolver } from './fetcher.ts'

/**
 * The address guard for a browser: a forward proxy on loopback that every request of a Chromium
 * goes through (`chromeFlags`), checked as the safe fetcher checks a fetch. A name is resolved here,
 * every address it has is checked and the connection goes to a checked one; an IP literal, a port
 * other than 80 and 443, and loopback, private, link-local (cloud metadata) and reserved addresses
 * are refused unless private networks are allowed. Plain HTTP is forwarded (a refusal drops the
 * connection, so the page sees a network error); HTTPS and WebSockets come as CONNECT and are
 * tunnelled after the same check, so TLS stays end to end (a refusal answers 403, which the browser
 * reports as a failed tunnel). Redirects are requests of their own and pass the guard again.
 *
 * `pinned` is the one origin reached without a check: the audited page's host and port, at the
 * addresses its caller already checked (so a second DNS answer cannot move it).
 */
export interface BrowserGuardOptions {
  allowPrivateNetworks: boolean
  pinned?: { host: string; port: number; addresses: string[] }
  /** Replaces DNS (tests); its answers are checked like the system's. */
  resolver?: Resolver
}

export interface BrowserGuard {
  /** Chromium flags that send every request through the guard, loopback included. */
  chromeFlags: string[]
  /** What was refused, as `host:port reason`, in order. */
  refused: string[]
  close(): Promise<void>
}

const CONNECT_TIMEOUT_MS = 10_000
/** Headers about the hop to the proxy, not for the server. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

export async function startBrowserGuard(options: BrowserGuardOptions): Promise<BrowserGuard> {
  const allowPrivate = options.allowPrivateNetworks
  const fetcher = createSafeFetcher({ allowPrivateNetworks: allowPrivate, ...(options.resolver ? { resolver: options.resolver } : {}) })
  const refused: string[] = []
  /** Tunnels leave the HTTP server's books once established: closed with the guard. */
  const tunnels = new Set<Duplex>()

  /** The checked address to connect to for host:port, or a FetchError saying why not. */
  async function addressFor(host: string, port: number): Promise<string> {
    const bare = host.startsWith('[') ? host.slice(1, -1) : host
    const { pinned } = options
    if (pinned && bare === pinned.host.replace(/^\[|\]$/g, '') && port === pinned.port && pinned.addresses[0]) return pinned.addresses[0]
    if (!allowPrivate && port !== 80 && port !== 443) throw new FetchError('invalid_url', 'an explicit port other than 80 and 443')
    if (isIP(bare) && !allowPrivate) throw new FetchError('forbidden_address', 'an IP address host')
    const [address] = await fetcher.resolve(bare)
    if (!address) throw new FetchError('dns_failed', `${bare} has no address`)
    return address
  }

  const refuse = (target: string, error: unknown) => {
    refused.push(`${target} ${error instanceof Error ? error.message : String(error)}`)
  }

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    let url: URL
    try {
      url = new URL(req.url ?? '')
      if (url.protocol !== 'http:') throw new FetchError('invalid_url', `the scheme ${url.protocol}`)
    } catch (error) {
      refuse(String(req.url).slice(0, 200), error)
      res.writeHead(400, { connection: 'close' }).end()
      return
    }
    const port = Number(url.port || 80)
    let address: string
    try {
      address = await addressFor(url.hostname, port)
    } catch (error) {
      refuse(`${url.hostname}:${port}`, error)
      // A network error, as an unreachable address gives: an answer would be the page's to read.
      req.socket.destroy()
      return
    }
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value
    const upstream = request({
      host: address,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      timeout: CONNECT_TIMEOUT_MS,
    })
    upstream.on('response', (answer) => {
      const answerHeaders: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined && !HOP_HEADERS.has(name)) answerHeaders[name] = value
      res.writeHead(answer.statusCode ?? 502, answerHeaders)
      answer.pipe(res)
    })
    upstream.on('timeout', () => upstream.destroy(new Error('timeout')))
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { connection: 'close' }).end()
      else res.destroy()
    })
    req.pipe(upstream)
  }

  const tunnel = async (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => {})
    tunnels.add(client)
    client.once('close', () => tunnels.delete(client))
    let host = ''
    let port = 0
    let address: string
    try {
      const target = new URL(`http://${req.url ?? ''}`)
      host = target.hostname
      port = Number(target.port || 443)
      address = await addressFor(host, port)
    } catch (error) {
      refuse(`${host || String(req.url).slice(0, 200)}:${port}`, error)
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
      return
    }
    const upstream: Socket = connect({ host: address, port, timeout: CONNECT_TIMEOUT_MS })
    upstream.once('connect', () => {
      upstream.setTimeout(0)
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.pipe(client).on('error', () => {})
      client.pipe(upstream)
    })
    upstream.on('timeout', () => upstream.destroy())
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
    })
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
  }

  const server = createServer((req, res) => void forward(req, res))
  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void tunnel(req, socket, head))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    chromeFlags: [
      `--proxy-server=http://127.0.0.1:${port}`,
      // Chromium sends loopback past any proxy unless told not to.
      '--proxy-bypass-list=<-loopback>',
      // WebRTC would otherwise open UDP to any address a page names.
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    ],
    refused,
    async close() {
      for (const socket of tunnels) socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await fetcher.close()
    },
  }
}
