import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  addressRefusal,
  createSafeFetcher,
  DEFAULT_USER_AGENT,
  FetchError,
  normaliseDomain,
  type Resolver,
} from '../../src/infra/fetcher.ts'

// A real HTTP server on loopback; each test path behaves in one way the fetcher must handle.
let server: Server
let port = 0
const seen: Array<{ url: string; userAgent: string | undefined }> = []

function handle(req: IncomingMessage, res: ServerResponse) {
  seen.push({ url: req.url ?? '', userAgent: req.headers['user-agent'] })
  const url = req.url ?? '/'
  if (url === '/ok') return res.writeHead(200, { 'content-type': 'text/plain' }).end('hello')
  if (url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end()
  if (url === '/to-mapped') return res.writeHead(301, { location: 'http://[::ffff:7f00:1]/' }).end()
  if (url === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end()
  if (url === '/to-userinfo') return res.writeHead(302, { location: `http://admin:secret@localhost:${port}/ok` }).end()
  if (url.startsWith('/loop/')) return res.writeHead(302, { location: `/loop/${Number(url.slice(6)) + 1}` }).end()
  if (url === '/hop') return res.writeHead(301, { location: '/ok' }).end()
  if (url === '/big') return res.writeHead(200, { 'content-length': String(3 * 1024 * 1024) }).end(Buffer.alloc(3 * 1024 * 1024, 97))
  if (url === '/big-chunked') {
    res.writeHead(200, { 'content-type': 'text/plain' })
    for (let i = 0; i < 30; i++) res.write(Buffer.alloc(100 * 1024, 98))
    return res.end()
  }
  if (url === '/gzip')
    return res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' }).end(gzipSync('<h1>compressed</h1>'))
  if (url === '/br') return res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync('brotli body'))
  if (url === '/bomb') return res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(20 * 1024 * 1024)))
  if (url === '/corrupt') return res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('this is not gzip at all'))
  if (url === '/hang') return // never answers
  res.writeHead(404).end()
}

beforeAll(async () => {
  server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

async function refusal(promise: Promise<unknown>): Promise<FetchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(FetchError)
  return error as FetchError
}

const fixed =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

describe('normaliseDomain', () => {
  it('lower-cases, converts IDN to punycode and drops a scheme, trailing slash and dot', () => {
    expect(normaliseDomain('  Example.COM ')).toBe('example.com')
    expect(normaliseDomain('https://www.Example.com/')).toBe('www.example.com')
    expect(normaliseDomain('bücher.de')).toBe('xn--bcher-kva.de')
    expect(normaliseDomain('example.com.')).toBe('example.com')
  })

  it.each([
    ['', 'empty'],
    ['example.com:8080', 'port'],
    ['user:pw@example.com', 'user information'],
    ['https://example.com/path', 'path'],
    ['example.com?x=1', 'path'],
    ['127.0.0.1', 'IP address'],
    ['[::1]', 'IP address'],
    ['localhost', 'top-level'],
    ['intranet', 'top-level'],
    ['example.123', 'valid host'],
    ['exa mple.com', 'spaces'],
    ['-bad-.com', 'valid host'],
    ['ftp://example.com', 'http'],
    ['a'.repeat(64) + '.com', 'valid host'],
  ])('refuses %j (%s)', (input, reason) => {
    expect(() => normaliseDomain(input)).toThrow(FetchError)
    try {
      normaliseDomain(input)
    } catch (error) {
      expect((error as FetchError).code).toBe('invalid_domain')
      expect((error as FetchError).message.toLowerCase()).toContain(reason.toLowerCase())
    }
  })

  it('accepts localhost, IP literals and ports only when private networks are allowed', () => {
    expect(normaliseDomain('localhost:4000', { allowPrivateNetworks: true })).toBe('localhost:4000')
    expect(normaliseDomain('127.0.0.1:4000', { allowPrivateNetworks: true })).toBe('127.0.0.1:4000')
    expect(() => normaliseDomain('localhost:4000')).toThrow(/port/)
  })
})

describe('addressRefusal', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.1.1',
    '100.64.0.1',
    '224.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '192.0.2.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:db8::1',
  ])('refuses %s', (address) => {
    expect(addressRefusal(address)).toBeTypeOf('string')
  })

  it('names the cloud metadata address', () => {
    expect(addressRefusal('169.254.169.254', true)).toBe('the cloud metadata address')
  })

  it('allows public unicast, and loopback/private only when private networks are allowed', () => {
    expect(addressRefusal('93.184.216.34')).toBeUndefined()
    expect(addressRefusal('2606:4700:4700::1111')).toBeUndefined()
    expect(addressRefusal('127.0.0.1', true)).toBeUndefined()
    expect(addressRefusal('10.0.0.1', true)).toBeUndefined()
    expect(addressRefusal('100.64.0.1', true)).toBeTypeOf('string')
    expect(addressRefusal('::ffff:127.0.0.1', true)).toBeTypeOf('string')
  })
})

describe('createSafeFetcher without private networks', () => {
  const fetcher = createSafeFetcher({ timeoutMs: 2000 })
  afterAll(() => fetcher.close())

  it('refuses a name that resolves to loopback before any connection is made', async () => {
    const before = seen.length
    const error = await refusal(fetcher.fetch('http://localhost/ok'))
    expect(error.code).toBe('forbidden_address')
    expect(seen.length).toBe(before)
  })

  it('refuses IP literal hosts and explicit ports', async () => {
    expect((await refusal(fetcher.fetch('http://127.0.0.1/ok'))).code).toBe('forbidden_address')
    expect((await refusal(fetcher.fetch('http://[::1]/ok'))).code).toBe('forbidden_address')
    expect((await refusal(fetcher.fetch(`http://localhost:${port}/ok`))).code).toBe('invalid_url')
  })

  it('refuses a name when any one of its addresses is private, mapped or metadata', async () => {
    for (const answer of [['93.184.216.34', '10.0.0.5'], ['::ffff:127.0.0.1'], ['169.254.169.254'], ['100.64.1.1'], ['fd12::1']]) {
      const resolving = createSafeFetcher({ resolver: fixed(...answer), timeoutMs: 2000 })
      const error = await refusal(resolving.fetch('http://fixture.example/ok'))
      expect(error.code).toBe('forbidden_address')
      expect(error.url).toBe('http://fixture.example/ok')
      await resolving.close()
    }
  })

  it('reports a name that does not resolve', async () => {
    const failing = createSafeFetcher({ resolver: async () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) })
    const error = await refusal(failing.fetch('https://no-such-name.example/'))
    expect(error.code).toBe('dns_failed')
    expect(error.message).toContain('ENOTFOUND')
    await failing.close()
  })

  it('refuses schemes other than http and https', async () => {
    expect((await refusal(fetcher.fetch('file:///etc/passwd'))).code).toBe('invalid_url')
    expect((await refusal(fetcher.fetch('gopher://example.com/'))).code).toBe('invalid_url')
  })
})

describe('createSafeFetcher with private networks (test mode)', () => {
  const fetcher = createSafeFetcher({ allowPrivateNetworks: true, timeoutMs: 1500, maxBytes: 1024 * 1024, maxRedirects: 3 })
  afterAll(() => fetcher.close())
  const base = () => `http://localhost:${port}`

  it('fetches through DNS with a clear User-Agent', async () => {
    const result = await fetcher.fetch(`${base()}/ok`)
    expect(result.status).toBe(200)
    expect(result.text()).toBe('hello')
    expect(result.headers['content-type']).toBe('text/plain')
    expect(seen.at(-1)?.userAgent).toBe(DEFAULT_USER_AGENT)
  })

  it('follows a redirect and reports the hops and the final URL', async () => {
    const result = await fetcher.fetch(`${base()}/hop`)
    expect(result.status).toBe(200)
    expect(result.url).toBe(`${base()}/ok`)
    expect(result.redirects).toEqual([{ url: `${base()}/hop`, status: 301 }])
  })

  it('checks every redirect hop again: metadata, mapped IPv6, file: and userinfo are refused', async () => {
    expect((await refusal(fetcher.fetch(`${base()}/to-metadata`))).code).toBe('forbidden_address')
    expect((await refusal(fetcher.fetch(`${base()}/to-mapped`))).code).toBe('forbidden_address')
    expect((await refusal(fetcher.fetch(`${base()}/to-file`))).code).toBe('invalid_url')
    expect((await refusal(fetcher.fetch(`${base()}/to-userinfo`))).code).toBe('invalid_url')
  })

  it('caps redirects', async () => {
    const before = seen.length
    const error = await refusal(fetcher.fetch(`${base()}/loop/0`))
    expect(error.code).toBe('too_many_redirects')
    expect(seen.length - before).toBe(4)
  })

  it('caps the body size, by Content-Length and while streaming', async () => {
    expect((await refusal(fetcher.fetch(`${base()}/big`))).code).toBe('too_large')
    expect((await refusal(fetcher.fetch(`${base()}/big-chunked`))).code).toBe('too_large')
    const cut = await fetcher.fetch(`${base()}/big-chunked`, { truncate: true })
    expect(cut.truncated).toBe(true)
    expect(cut.body.length).toBe(1024 * 1024)
  })

  it('decodes gzip and brotli bodies and caps the decoded size (a compression bomb is cut)', async () => {
    expect((await fetcher.fetch(`${base()}/gzip`)).text()).toBe('<h1>compressed</h1>')
    expect((await fetcher.fetch(`${base()}/br`)).text()).toBe('brotli body')
    expect((await refusal(fetcher.fetch(`${base()}/bomb`))).code).toBe('too_large')
    const cut = await fetcher.fetch(`${base()}/bomb`, { truncate: true })
    expect(cut.body.length).toBe(1024 * 1024)
    expect((await refusal(fetcher.fetch(`${base()}/corrupt`))).code).toBe('invalid_response')
  })

  it('gives up after the deadline', async () => {
    const started = Date.now()
    const error = await refusal(fetcher.fetch(`${base()}/hang`, { timeoutMs: 300 }))
    expect(error.code).toBe('timeout')
    expect(Date.now() - started).toBeLessThan(1500)
  })

  it('connects to the address it checked: a rebinding second answer is never asked for', async () => {
    let calls = 0
    // First answer loopback (allowed here), any later answer the metadata address.
    const rebinding: Resolver = async () => {
      calls++
      return [{ address: calls === 1 ? '127.0.0.1' : '169.254.169.254', family: 4 }]
    }
    const pinned = createSafeFetcher({ allowPrivateNetworks: true, resolver: rebinding, timeoutMs: 1500 })
    const result = await pinned.fetch(`http://rebind.example:${port}/ok`)
    expect(result.text()).toBe('hello')
    expect(calls).toBe(1)
    // The reverse order: the first answer is refused and nothing is connected.
    calls = 1
    const before = seen.length
    const error = await refusal(
      createSafeFetcher({ allowPrivateNetworks: true, resolver: rebinding }).fetch(`http://rebind2.example:${port}/ok`),
    )
    expect(error.code).toBe('forbidden_address')
    expect(seen.length).toBe(before)
    await pinned.close()
  })

  it('still refuses link-local, CGNAT and multicast literals', async () => {
    expect((await refusal(fetcher.fetch('http://169.254.169.254/'))).code).toBe('forbidden_address')
    expect((await refusal(fetcher.fetch('http://100.64.0.1/'))).code).toBe('forbidden_address')
    expect((await refusal(fetcher.fetch('http://224.0.0.1/'))).code).toBe('forbidden_address')
  })
})
