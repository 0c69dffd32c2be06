import { hash } from 'node:crypto'
import { type AgentClass, campaignOf, referrerHost } from './classify.ts'

/** One view of a published page, as the server that answered it saw it. */
export interface PageVisit {
  siteId: string
  /** The host the page was asked on (a referrer naming it is the site itself). */
  host: string
  /** The page's decoded path. */
  path: string
  /** The request target as sent (its query holds the UTM parameters). */
  url: string
  /** The client's address: held in this process's memory for the day, hashed with the day's salt when written; never written itself. */
  address: string
  userAgent: string | undefined
  referer: string | undefined
}

/** Joins a kind and a value into one key: `kind\0value`. */
export const SEP = '\u0000'
/** The key that stands for the day itself in a visitor's keys. */
export const DAY_KEY = `day${SEP}`
/** The length of a kept value (a path, a host, a UTM value). */
const VALUE_MAX = 200

/**
 * The page views of one key (`kind\0value`) since the last flush. A page view raises the counters it
 * counts for in place, found through its visitor or the raw header that names them, so it builds no
 * key and looks up no key of its own.
 */
interface Counter {
  readonly key: string
  n: number
}

/** One visitor (an address with a user agent) of a site's day. */
interface Visitor {
  readonly address: string
  readonly userAgent: string
  /** The counters of their device class and browser (never dropped: a few per day). */
  readonly device: Counter
  readonly browser: Counter
  /** Their hash, made by the first flush that writes them. */
  hash: string | undefined
  /** The counters of the pages, referrers and campaigns they were seen for today. */
  readonly seen: Set<Counter>
  /** The keys they were seen for that no flush has written yet (DAY_KEY for a new visitor). */
  unwritten: string[]
}

/** What a flush writes of a site's day: the counts since the last flush, and each visitor's new keys. */
export interface SiteDayCounts {
  siteId: string
  day: string
  pageviews: number
  /** `kind\0value` → page views, for pages, devices, browsers, referrers and campaigns. */
  items: Map<string, number>
  seen: Array<{ visitor: Visitor; hash: string; keys: string[] }>
}

/**
 * The raw paths, Referers and request targets a site's day remembers with what they count for
 * (beyond this many they are forgotten and read again), and the longest it remembers.
 */
const RAW_MAX = 500
const RAW_LENGTH_MAX = 256

/** Remembers what a raw path, Referer or request target leads to, within RAW_MAX and RAW_LENGTH_MAX. */
function rememberRaw<V>(remembered: Map<string, V>, raw: string, value: V): void {
  if (raw.length > RAW_LENGTH_MAX) return
  if (remembered.size >= RAW_MAX) remembered.clear()
  remembered.set(raw, value)
}
/** The kinds of counter that stay all day: a page view may raise them through its visitor (devices, browsers) or its path. */
const STAYING = new Set(['page', 'device', 'browser'])

/** The hash that stands for a visitor on one day: unlinkable to the address, and to other days once the salt is gone. */
export function visitorHash(salt: string, siteId: string, address: string, userAgent: string): string {
  // One-shot: one call into the native hash (the same digest as the four parts fed in turn).
  return hash('sha256', salt + SEP + siteId + SEP + address + SEP + userAgent, 'base64url').slice(0, 22)
}

/**
 * One site's page views on one day, in memory. The counters are read by each flush and start again
 * from zero; the visitors stay for the day, each with what it was already seen for, so a flush
 * writes only what is new about a visitor (its first view of a page, a new referrer) and its hash
 * is made once a day. A page view of a known visitor on a page it saw already builds no string and
 * hashes nothing of its own: it looks up its address, user agent, path and (when sent) its Referer
 * and query, and raises counters.
 */
export class SiteDay {
  readonly siteId: string
  readonly day: string
  readonly #salt: string
  #pageviews = 0
  /** `kind\0value` → its counter. */
  #counters = new Map<string, Counter>()
  /** path → the counter of `page\0path`. */
  #pages = new Map<string, Counter>()
  /** Referer as sent → the host it was read for and its referrer's counter (null: none, the site itself). */
  #referrers = new Map<string, { host: string; counter: Counter | null }>()
  /** Request target as sent → the counters of its UTM source, medium and campaign. */
  #campaigns = new Map<string, Counter[]>()
  /** address → user agent → visitor. */
  #visitors = new Map<string, Map<string, Visitor>>()
  #unwritten = new Set<Visitor>()
  #remembered = 0

  constructor(siteId: string, day: string, salt: string) {
    this.siteId = siteId
    this.day = day
    this.#salt = salt
  }

  /** How many visitors it keeps in memory. */
  get remembered(): number {
    return this.#remembered
  }

  /** Whether nothing waits to be written. */
  get settled(): boolean {
    return this.#pageviews === 0 && this.#unwritten.size === 0
  }

  add(visit: PageVisit, agent: AgentClass): void {
    const userAgent = visit.userAgent ?? ''
    let agents = this.#visitors.get(visit.address)
    if (!agents) this.#visitors.set(visit.address, (agents = new Map()))
    let visitor = agents.get(userAgent)
    if (!visitor) {
      const device = this.#counter(`device${SEP}${agent.device}`)
      const browser = this.#counter(`browser${SEP}${agent.browser}`)
      visitor = {
        address: visit.address,
        userAgent,
        device,
        browser,
        hash: undefined,
        seen: new Set(),
        unwritten: [DAY_KEY, device.key, browser.key],
      }
      agents.set(userAgent, visitor)
      this.#remembered++
      this.#unwritten.add(visitor)
    }
    this.#pageviews++
    visitor.device.n++
    visitor.browser.n++
    let page = this.#pages.get(visit.path)
    if (!page) {
      page = this.#counter(`page${SEP}${visit.path.length > VALUE_MAX ? visit.path.slice(0, VALUE_MAX) : visit.path}`)
      rememberRaw(this.#pages, visit.path, page)
    }
    this.#count(visitor, page)
    if (visit.referer) {
      const referrer = this.#referrer(visit.referer, visit.host)
      if (referrer) this.#count(visitor, referrer)
    }
    if (visit.url.includes('?')) for (const counter of this.#campaign(visit.url)) this.#count(visitor, counter)
  }

  /** Raises a counter of a page or a source, and notes the first time this visitor counts for it. */
  #count(visitor: Visitor, counter: Counter): void {
    counter.n++
    if (visitor.seen.has(counter)) return
    visitor.seen.add(counter)
    visitor.unwritten.push(counter.key)
    this.#unwritten.add(visitor)
  }

  #counter(key: string): Counter {
    let counter = this.#counters.get(key)
    if (!counter) this.#counters.set(key, (counter = { key, n: 0 }))
    return counter
  }

  #referrer(referer: string, host: string): Counter | null {
    const known = this.#referrers.get(referer)
    if (known && known.host === host) return known.counter
    const referrer = referrerHost(referer, host)
    const counter = referrer ? this.#counter(`referrer${SEP}${referrer.slice(0, VALUE_MAX)}`) : null
    rememberRaw(this.#referrers, referer, { host, counter })
    return counter
  }

  #campaign(url: string): Counter[] {
    let counters = this.#campaigns.get(url)
    if (counters) return counters
    const campaign = campaignOf(url)
    counters = []
    if (campaign?.source) counters.push(this.#counter(`utm_source${SEP}${campaign.source}`))
    if (campaign?.medium) counters.push(this.#counter(`utm_medium${SEP}${campaign.medium}`))
    if (campaign?.campaign) counters.push(this.#counter(`utm_campaign${SEP}${campaign.campaign}`))
    rememberRaw(this.#campaigns, url, counters)
    return counters
  }

  /**
   * Hands over what came since the last flush and starts the counters again; undefined when
   * nothing came. The referrers' and campaigns' counters nothing raised since the last flush are
   * dropped (their values are unbounded), with the raw headers that led to them: one seen again
   * gets a new counter, and a visitor counted for it again is written again, which the database
   * already has and ignores.
   */
  take(): SiteDayCounts | undefined {
    if (this.settled) return undefined
    const seen = [...this.#unwritten].map((visitor) => {
      visitor.hash ??= visitorHash(this.#salt, this.siteId, visitor.address, visitor.userAgent)
      const keys = visitor.unwritten
      visitor.unwritten = []
      return { visitor, hash: visitor.hash, keys }
    })
    const items = new Map<string, number>()
    let dropped = false
    for (const [key, counter] of this.#counters) {
      if (counter.n > 0) {
        items.set(key, counter.n)
        counter.n = 0
      } else if (!STAYING.has(key.slice(0, key.indexOf(SEP)))) {
        this.#counters.delete(key)
        dropped = true
      }
    }
    if (dropped) {
      this.#referrers.clear()
      this.#campaigns.clear()
    }
    const counts = { siteId: this.siteId, day: this.day, pageviews: this.#pageviews, items, seen }
    this.#pageviews = 0
    this.#unwritten = new Set()
    return counts
  }

  /** Puts back what a flush took and could not write, for the next one. */
  restore(counts: SiteDayCounts): void {
    this.#pageviews += counts.pageviews
    for (const [key, n] of counts.items) this.#counter(key).n += n
    for (const { visitor, keys } of counts.seen) {
      visitor.unwritten.push(...keys)
      this.#unwritten.add(visitor)
    }
  }

  /**
   * Forgets the visitors whose keys are all written (memory is bounded): one seen again is taken
   * for new and its keys written again, which the database already has and ignores.
   */
  forgetWritten(): void {
    for (const [address, agents] of this.#visitors) {
      for (const [userAgent, visitor] of agents) if (visitor.unwritten.length === 0) agents.delete(userAgent)
      if (agents.size === 0) this.#visitors.delete(address)
    }
    this.#remembered = this.#unwritten.size
  }
}
