import { isbot } from 'isbot'

/** The device classes the statistics tell apart (by user agent). */
export const DEVICE_KINDS = ['desktop', 'mobile', 'tablet'] as const
export type DeviceKind = (typeof DEVICE_KINDS)[number]

/** What a user agent says about its visitor: a bot (never counted), else its device class and browser family. */
export interface AgentClass {
  bot: boolean
  device: DeviceKind
  browser: string
}

const TABLET = /iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i
const MOBILE = /Mobi|iPhone|iPod|Android|Windows Phone|Opera Mini/i

// Most specific first: Edge, Opera and Samsung Internet also name Chrome and Safari.
const BROWSERS: Array<[RegExp, string]> = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
]

/** Classifying a user agent costs a few regular expressions; the same few agents come back all day. */
const known = new Map<string, AgentClass>()
const KNOWN_MAX = 2000

/** The class of a user agent; an empty or missing one is a bot (browsers always send one). */
export function classifyAgent(userAgent: string | undefined): AgentClass {
  if (!userAgent) return { bot: true, device: 'desktop', browser: 'Other' }
  let found = known.get(userAgent)
  if (found) return found
  const device: DeviceKind = TABLET.test(userAgent) ? 'tablet' : MOBILE.test(userAgent) ? 'mobile' : 'desktop'
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'Other'
  found = { bot: isbot(userAgent), device, browser }
  if (known.size >= KNOWN_MAX) known.clear()
  known.set(userAgent, found)
  return found
}

/**
 * The host a Referer names, lower-cased without a leading `www.`; undefined when there is none,
 * it does not parse, or it is the site itself (a visitor moving between its pages).
 */
export function referrerHost(referer: string | undefined, ownHost: string): string | undefined {
  if (!referer) return undefined
  const start = referer.indexOf('//')
  if (start === -1) return undefined
  let end = referer.length
  for (let i = start + 2; i < referer.length; i++) {
    const c = referer.charCodeAt(i)
    // '/', '?', '#', ':', '@' end (or, for '@', follow userinfo of) the host.
    if (c === 47 || c === 63 || c === 35 || c === 58) {
      end = i
      break
    }
    if (c === 64) return undefined
  }
  const host = referer.slice(start + 2, end).toLowerCase()
  if (!host || host.length > 253 || host === ownHost) return undefined
  const bare = host.startsWith('www.') ? host.slice(4) : host
  if (bare === ownHost || `www.${bare}` === ownHost) return undefined
  return /^[a-z0-9.-]+$/.test(bare) ? bare : undefined
}

export interface Campaign {
  source?: string
  medium?: string
  campaign?: string
}

const UTM_MAX = 100

/** The UTM source, medium and campaign of a request target, lower-cased and trimmed; undefined without any. */
export function campaignOf(url: string): Campaign | undefined {
  const query = url.indexOf('?')
  if (query === -1 || !url.includes('utm_', query)) return undefined
  const params = new URLSearchParams(url.slice(query + 1, url.includes('#', query) ? url.indexOf('#', query) : undefined))
  const read = (name: string) => {
    const value = params.get(name)?.trim().toLowerCase().slice(0, UTM_MAX)
    return value || undefined
  }
  const found: Campaign = {}
  const source = read('utm_source')
  const medium = read('utm_medium')
  const campaign = read('utm_campaign')
  if (source) found.source = source
  if (medium) found.medium = medium
  if (campaign) found.campaign = campaign
  return source || medium || campaign ? found : undefined
}

/** Whether a request is a browser's prefetch or prerender (Sec-Purpose, or the older Purpose / X-Purpose). */
export function isPrefetch(headers: Record<string, string | string[] | undefined>): boolean {
  const purpose = headers['sec-purpose'] ?? headers['purpose'] ?? headers['x-purpose'] ?? headers['x-moz']
  if (purpose === undefined) return false
  const text = Array.isArray(purpose) ? purpose.join(',') : purpose
  return /prefetch|prerender|preview/i.test(text)
}
