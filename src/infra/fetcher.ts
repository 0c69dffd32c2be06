import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import type { Transform } from 'node:stream'
import { rootCertificates } from 'node:tls'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { domainToASCII } from 'node:url'
import ipaddr from 'ipaddr.js'
import { Agent, request, type Dispatcher } from 'undici'

/**
 * The one way the service fetches a URL that a client named (audits, OAuth client metadata).
 *
 * Rules it enforces:
 * - the host is a normalised DNS name (IDN as punycode); no userinfo, no port, no IP literal,
 *   unless private networks are allowed (tests and local development only);
 * - every address a name resolves to is checked, and one refused address refuses the name:
 *   loopback, private, link-local (cloud metadata 169.254.169.254), CGNAT, multicast,
 *   IPv4-mapped and translated IPv6, documentation and other reserved ranges;
 * - the socket connects to the address that was checked (the check runs inside the connector's
 *   lookup), so a second, rebinding DNS answer is never asked for;
 * - redirects are followed by hand, each hop checked again, at most `maxRedirects`;
 * - a deadline for the whole exchange and a cap on the body size.
 */

export type FetchErrorCode =
  | 'invalid_domain'
  | 'invalid_url'
  | 'forbidden_address'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'timeout'
  | 'too_large'
  | 'connection_failed'
  | 'invalid_response'

/** A refusal or failure of the fetcher; `code` is stable so callers can narrow on it. */
export class FetchError extends Error {
  readonly code: FetchErrorCode
  readonly url: string | undefined
  constructor(code: FetchErrorCode, message: string, url?: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'FetchError'
    this.code = code
    this.url = url
  }
}

export interface NormaliseOptions {
  /** Also accept `localhost`, IP literals and an explicit port (tests and local development). */
  allowPrivateNetworks?: boolean
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * Turns what a person typed ("Example.COM", "https://bücher.de/", "www.example.com.") into the
 * host the service will fetch: lower case, punycode, no trailing dot, no path. Throws FetchError
 * `invalid_domain` with a message safe to show the client.
 */
export function normaliseDomain(input: string, options: NormaliseOptions = {}): string {
  const raw = input.trim()
  if (raw.length === 0) throw new FetchError('invalid_domain', 'The domain is empty')
  if (raw.length > 300) throw new FetchError('invalid_domain', 'The domain is too long')
  if (/[\s\\]/.test(raw)) throw new FetchError('invalid_domain', 'The domain contains spaces or backslashes')
  let url: URL
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`)
  } catch {
    throw new FetchError('invalid_domain', 'The domain is not a valid host name')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError('invalid_domain', 'Only http and https sites can be checked')
  if (url.username || url.password) throw new FetchError('invalid_domain', 'The domain must not contain user information')
  if (url.pathname !== '/' || url.search || url.hash) throw new FetchError('invalid_domain', 'Give a domain only, without a path or query')
  const allow = options.allowPrivateNetworks === true
  if (url.port && !allow) throw new FetchError('invalid_domain', 'The domain must not contain a port')
  let host = url.hostname.replace(/\.$/, '')
  const literal = host.startsWith('[') ? host.slice(1, -1) : host
  if (isIP(literal)) {
    if (!allow) throw new FetchError('invalid_domain', 'Give a domain name, not an IP address')
    return url.port ? `${host}:${url.port}` : host
  }
  host = domainToASCII(host)
  if (!host || host.length > 253) throw new FetchError('invalid_domain', 'The domain is not a valid host name')
  const labels = host.split('.')
  if (!labels.every((l) => LABEL.test(l))) throw new FetchError('invalid_domain', 'The domain is not a valid host name')
  const single = labels.length < 2
  if ((single && !(allow && host === 'localhost')) || /^[0-9]+$/.test(labels.at(-1) ?? '')) {
    throw new FetchError('invalid_domain', 'The domain needs a registered name and a top-level domain')
  }
  return url.port ? `${host}:${url.port}` : host
}

/** Ranges a public fetch may reach; everything else is refused. */
const PUBLIC_RANGES = new Set(['unicast'])
/** What OUTBOUND_ALLOW_PRIVATE_NETWORKS adds. Link-local (metadata), multicast and the like stay refused. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal'])

/** Why an address is refused, or undefined when it may be reached. */
export function addressRefusal(address: string, allowPrivateNetworks = false): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address)
  } catch {
    return 'not an IP address'
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    // Refused outright: a mapped address in a DNS answer is a way round IPv4 filters.
    return 'an IPv4-mapped IPv6 address'
  }
  const range = parsed.range()
  if (PUBLIC_RANGES.has(range)) return undefined
  if (allowPrivateNetworks && PRIVATE_RANGES.has(range)) return undefined
  if (address === '169.254.169.254' || address === 'fd00:ec2::254') return 'the cloud metadata address'
  return `a ${range} address`
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
  })

export interface SafeFetcherOptions {
  allowPrivateNetworks?: boolean
  userAgent?: string
  /** Deadline for one fetch including redirects and body. */
  timeoutMs?: number
  /** Largest body read; beyond it the fetch fails with `too_large` (or is cut when `truncate`). */
  maxBytes?: number
  maxRedirects?: number
  /** Replaces DNS (tests); its answers are checked like the system's. */
  resolver?: Resolver
  /** Sockets kept per origin (a crawl reuses them). */
  connections?: number
  /** Extra trusted certificate authorities (PEM), e.g. a private CA; the public roots stay trusted. */
  ca?: string[]
}

export interface FetchInit {
  method?: 'GET' | 'HEAD' | 'POST'
  headers?: Record<string, string>
  /** The request body (webhook deliveries POST their JSON). */
  body?: string
  /** Keep the first `maxBytes` of an oversized body instead of failing. */
  truncate?: boolean
  maxBytes?: number
  timeoutMs?: number
  maxRedirects?: number
  signal?: AbortSignal
}

export interface FetchResult {
  status: number
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>
  /** The final URL after redirects. */
  url: string
  body: Buffer
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean
  /** Each hop followed, in order: the URL that answered with a redirect and its status. */
  redirects: Array<{ url: string; status: number }>
  /** Milliseconds from the first request to the end of the body. */
  elapsed_ms: number
  text(): string
}

export interface SafeFetcher {
  fetch(url: string, init?: FetchInit): Promise<FetchResult>
  /** Resolves a host name and checks every address as a fetch would; the addresses it may reach. */
  resolve(hostname: string): Promise<string[]>
  close(): Promise<void>
}

export const DEFAULT_USER_AGENT = 'WebPresenceBot/1.1 (+site checks; https://github.com/web-presence)'

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

function decoderFor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip()
    case 'deflate':
      return createInflate()
    case 'br':
      return createBrotliDecompress()
    default:
      return undefined
  }
}

/** Checks a URL before any socket is opened: scheme, userinfo, port, IP literal host. */
function checkUrl(raw: string, allowPrivateNetworks: boolean): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new FetchError('invalid_url', 'The URL is not valid', raw)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError('invalid_url', `The scheme ${url.protocol} is not fetched`, raw)
  if (url.username || url.password) throw new FetchError('invalid_url', 'URLs with user information are not fetched', raw)
  if (url.port && !allowPrivateNetworks) throw new FetchError('invalid_url', 'URLs with an explicit port are not fetched', raw)
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (isIP(host)) {
    if (!allowPrivateNetworks) throw new FetchError('forbidden_address', 'IP address hosts are not fetched', raw)
    const refusal = addressRefusal(host, allowPrivateNetworks)
    if (refusal) throw new FetchError('forbidden_address', `The host is ${refusal}`, raw)
  }
  return url
}

/** An error thrown from the connector's lookup that the fetch loop recognises again. */
class RefusedLookup extends Error {
  readonly fetchError: FetchError
  constructor(fetchError: FetchError) {
    super(fetchError.message)
    this.fetchError = fetchError
  }
}

function findCause(error: unknown): FetchError | undefined {
  let current: unknown = error
  for (let depth = 0; current && depth < 6; depth++) {
    if (current instanceof FetchError) return current
    if (current instanceof RefusedLookup) return current.fetchError
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** A resolver that refuses a name with no address or with any address the guard forbids. */
function checkedResolver(resolver: NonNullable<SafeFetcherOptions['resolver']>, allowPrivate: boolean) {
  return async function checkedAddresses(hostname: string): Promise<LookupAddress[]> {
    let addresses: LookupAddress[]
    try {
      addresses = await resolver(hostname)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error'
      throw new FetchError('dns_failed', `${hostname} could not be resolved (${code})`, undefined, { cause: error })
    }
    if (addresses.length === 0) throw new FetchError('dns_failed', `${hostname} has no address`)
    for (const entry of addresses) {
      const refusal = addressRefusal(entry.address, allowPrivate)
      if (refusal) throw new FetchError('forbidden_address', `${hostname} resolves to ${refusal}`)
    }
    return addresses
  }
}

/** The connection pool: its lookup runs inside net.connect, so the address checked is the address connected to. */
function guardedAgent(
  checkedAddresses: (hostname: string) => Promise<LookupAddress[]>,
  options: SafeFetcherOptions,
  defaultTimeout: number,
): Agent {
  const lookup = (
    hostname: string,
    lookupOptions: { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    checkedAddresses(hostname).then(
      (addresses) => {
        if (lookupOptions.all) callback(null, addresses)
        else callback(null, addresses[0]!.address, addresses[0]!.family)
      },
      (error: FetchError) => callback(new RefusedLookup(error), ''),
    )
  }
  return new Agent({
    connect: {
      lookup: lookup as never,
      timeout: Math.min(defaultTimeout, 5000),
      ...(options.ca?.length ? { ca: [...rootCertificates, ...options.ca] } : {}),
    },
    connections: options.connections ?? 8,
    headersTimeout: defaultTimeout,
    bodyTimeout: defaultTimeout,
    keepAliveTimeout: 4000,
    maxHeaderSize: 32 * 1024,
  })
}

type Answer = { status: number; headers: Record<string, string>; body: Buffer; truncated: boolean }

/** Reads a body up to `maxBytes` decoded bytes, so a small compressed bomb is cut like any large body. */
async function readBody(
  body: Dispatcher.ResponseData['body'],
  headers: Record<string, string>,
  url: URL,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const decoder = decoderFor(headers['content-encoding'])
  if (decoder) body.on('error', (error) => decoder.destroy(error)).pipe(decoder)
  const source = (decoder ?? body) as AsyncIterable<Buffer>
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  try {
    for await (const chunk of source) {
      const room = maxBytes - size
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room))
        size = maxBytes
        truncated = true
        break
      }
      chunks.push(chunk)
      size += chunk.length
    }
  } catch (error) {
    if (decoder && (error as { code?: string }).code?.startsWith('Z_')) {
      throw new FetchError('invalid_response', 'The response body could not be decoded', url.href, { cause: error })
    }
    throw error
  } finally {
    if (truncated) {
      decoder?.destroy()
      body.destroy()
    }
  }
  return { body: Buffer.concat(chunks, size), truncated }
}

/** One request, no redirect followed: its status, headers and (capped) body. */
async function fetchOnce(
  agent: Agent,
  userAgent: string,
  url: URL,
  init: FetchInit,
  signal: AbortSignal,
  maxBytes: number,
): Promise<Answer> {
  const response = await request(url, {
    method: init.method ?? 'GET',
    dispatcher: agent,
    signal,
    body: init.body,
    headers: {
      'user-agent': userAgent,
      accept: '*/*',
      'accept-encoding': 'gzip, deflate, br',
      ...init.headers,
    },
  })
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  const declared = Number(headers['content-length'])
  if (REDIRECT_STATUSES.has(response.statusCode) || init.method === 'HEAD') {
    await response.body.dump()
    return { status: response.statusCode, headers, body: Buffer.alloc(0), truncated: false }
  }
  if (!init.truncate && Number.isFinite(declared) && declared > maxBytes) {
    await response.body.dump().catch(() => {})
    throw new FetchError('too_large', `The response is larger than ${maxBytes} bytes`, url.href)
  }
  const { body, truncated } = await readBody(response.body, headers, url, maxBytes)
  if (truncated && !init.truncate) throw new FetchError('too_large', `The response is larger than ${maxBytes} bytes`, url.href)
  return { status: response.statusCode, headers, body, truncated }
}

/** A failed request as a FetchError naming the URL: a refusal of the guard, the deadline, or the connection. */
function fetchFailure(error: unknown, url: URL, deadline: AbortSignal, signal: AbortSignal, timeoutMs: number): unknown {
  const known = findCause(error)
  if (known) return known.url ? known : new FetchError(known.code, known.message, url.href, { cause: error })
  if (deadline.aborted) return new FetchError('timeout', `No complete answer within ${timeoutMs} ms`, url.href, { cause: error })
  if (signal.aborted) return error
  const code = (error as { code?: string }).code ?? 'error'
  return new FetchError('connection_failed', `The connection failed (${code})`, url.href, { cause: error })
}

/** Where a redirect leads, checked by the guard like the first URL. */
function redirectTarget(location: string, current: URL, allowPrivate: boolean): URL {
  let next: string
  try {
    next = new URL(location, current).href
  } catch {
    throw new FetchError('invalid_url', 'A redirect points to an invalid URL', current.href)
  }
  return checkUrl(next, allowPrivate)
}

export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const allowPrivate = options.allowPrivateNetworks === true
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT
  const defaultTimeout = options.timeoutMs ?? 10_000
  const defaultMaxBytes = options.maxBytes ?? 2 * 1024 * 1024
  const defaultMaxRedirects = options.maxRedirects ?? 5
  const checkedAddresses = checkedResolver(options.resolver ?? systemResolver, allowPrivate)
  const agent = guardedAgent(checkedAddresses, options, defaultTimeout)

  async function safeFetch(rawUrl: string, init: FetchInit = {}): Promise<FetchResult> {
    const started = performance.now()
    const timeoutMs = init.timeoutMs ?? defaultTimeout
    const maxBytes = init.maxBytes ?? defaultMaxBytes
    const maxRedirects = init.maxRedirects ?? defaultMaxRedirects
    const deadline = AbortSignal.timeout(timeoutMs)
    const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline
    const redirects: FetchResult['redirects'] = []
    let current = checkUrl(rawUrl, allowPrivate)
    for (;;) {
      let answer: Answer
      try {
        answer = await fetchOnce(agent, userAgent, current, init, signal, maxBytes)
      } catch (error) {
        throw fetchFailure(error, current, deadline, signal, timeoutMs)
      }
      const location = answer.headers['location']
      if (REDIRECT_STATUSES.has(answer.status) && location) {
        if (redirects.length >= maxRedirects)
          throw new FetchError('too_many_redirects', `More than ${maxRedirects} redirects`, current.href)
        redirects.push({ url: current.href, status: answer.status })
        current = redirectTarget(location, current, allowPrivate)
        continue
      }
      const { body } = answer
      return {
        status: answer.status,
        headers: answer.headers,
        url: current.href,
        body,
        truncated: answer.truncated,
        redirects,
        elapsed_ms: Math.round(performance.now() - started),
        text: () => body.toString('utf8'),
      }
    }
  }

  return {
    fetch: safeFetch,
    resolve: async (hostname) => {
      const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
      if (isIP(host)) {
        checkUrl(`http://${hostname}/`, allowPrivate)
        return [host]
      }
      return (await checkedAddresses(host)).map((a) => a.address)
    },
    close: () => agent.close(),
  }
}
