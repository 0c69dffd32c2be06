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

/** One visitor (an address with a user agent) of a site's day. */
interface Visitor {
  readonly address: string
  readonly userAgent: string
  /** The `device\0…` and `browser\0…` keys of their user agent. */
  readonly device: string
  readonly browser: string
  /** Their hash, made by the first flush that writes them. */
  hash: string | undefined
  /** The paths and the `kind\0value` keys of the referrers and campaigns they were seen for today. */
  readonly pages: Set<string>
  readonly sources: Set<string>
  /** The keys they were seen for that no flush has written yet (DAY_KEY for a new visitor). */
  unwritten: string[]
}

/** What a flush writes of a site's day: the counts since the last flush, and each visitor's new keys. */
export interface SiteDayCounts {
  siteId: string
  day: string
  pageviews: number
  /** path → page views. */
  pages: Map<string, number>
  /** `kind\0value` → page views, for devices, browsers, referrers and campaigns. */
  items: Map<string, number>
  seen: Array<{ visitor: Visitor; hash: string; keys: string[] }>
}

/** The hash that stands for a visitor on one day: unlinkable to the address, and to other days once the salt is gone. */
export function visitorHash(salt: string, siteId: string, address: string, userAgent: string): string {
  // One-shot: one call into the native hash (the same digest as the four parts fed in turn).
  return hash('sha256', salt + SEP + siteId + SEP + address + SEP + userAgent, 'base64url').slice(0, 22)
}

/**
 * One site's page views on one day, in memory. The counts are handed to each flush and start
 * again from zero; the visitors stay for the day, each with what it was already seen for, so a
 * flush writes only what is new about a visitor (its first view of a page, a new referrer) and
 * its hash is made once a day. A page view of a known visitor on a page it saw already builds no
 * string and hashes nothing: it looks up maps and raises counts.
 */
export class SiteDay {
  readonly siteId: string
  readonly day: string
  readonly #salt: string
  #pageviews = 0
  #pages = new Map<string, number>()
  #items = new Map<string, number>()
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
      const device = `device${SEP}${agent.device}`
      const browser = `browser${SEP}${agent.browser}`
      visitor = { address: visit.address, userAgent, device, browser, hash: undefined, pages: new Set(), sources: new Set(), unwritten: [] }
      visitor.unwritten.push(DAY_KEY, device, browser)
      agents.set(userAgent, visitor)
      this.#remembered++
      this.#unwritten.add(visitor)
    }
    this.#pageviews++
    const path = visit.path.length > VALUE_MAX ? visit.path.slice(0, VALUE_MAX) : visit.path
    this.#pages.set(path, (this.#pages.get(path) ?? 0) + 1)
    if (!visitor.pages.has(path)) {
      visitor.pages.add(path)
      this.#seenFor(visitor, `page${SEP}${path}`)
    }
    this.#items.set(visitor.device, (this.#items.get(visitor.device) ?? 0) + 1)
    this.#items.set(visitor.browser, (this.#items.get(visitor.browser) ?? 0) + 1)
    const referrer = referrerHost(visit.referer, visit.host)
    if (referrer) this.#source(visitor, `referrer${SEP}${referrer.slice(0, VALUE_MAX)}`)
    const campaign = campaignOf(visit.url)
    if (campaign?.source) this.#source(visitor, `utm_source${SEP}${campaign.source}`)
    if (campaign?.medium) this.#source(visitor, `utm_medium${SEP}${campaign.medium}`)
    if (campaign?.campaign) this.#source(visitor, `utm_campaign${SEP}${campaign.campaign}`)
  }

  #source(visitor: Visitor, key: string): void {
    this.#items.set(key, (this.#items.get(key) ?? 0) + 1)
    if (visitor.sources.has(key)) return
    visitor.sources.add(key)
    this.#seenFor(visitor, key)
  }

  #seenFor(visitor: Visitor, key: string): void {
    visitor.unwritten.push(key)
    this.#unwritten.add(visitor)
  }

  /** Hands over what came since the last flush and starts the counts again; undefined when nothing came. */
  take(): SiteDayCounts | undefined {
    if (this.settled) return undefined
    const seen = [...this.#unwritten].map((visitor) => {
      visitor.hash ??= visitorHash(this.#salt, this.siteId, visitor.address, visitor.userAgent)
      const keys = visitor.unwritten
      visitor.unwritten = []
      return { visitor, hash: visitor.hash, keys }
    })
    const counts = { siteId: this.siteId, day: this.day, pageviews: this.#pageviews, pages: this.#pages, items: this.#items, seen }
    this.#pageviews = 0
    this.#pages = new Map()
    this.#items = new Map()
    this.#unwritten = new Set()
    return counts
  }

  /** Puts back what a flush took and could not write, for the next one. */
  restore(counts: SiteDayCounts): void {
    this.#pageviews += counts.pageviews
    for (const [path, n] of counts.pages) this.#pages.set(path, (this.#pages.get(path) ?? 0) + n)
    for (const [item, n] of counts.items) this.#items.set(item, (this.#items.get(item) ?? 0) + n)
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
