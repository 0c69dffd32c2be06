import { hash, randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from '../../infra/db.ts'
import { type AgentClass, campaignOf, classifyAgent, referrerHost } from './classify.ts'

/** One view of a published page, as the server that answered it saw it. */
export interface PageVisit {
  siteId: string
  /** The host the page was asked on (a referrer naming it is the site itself). */
  host: string
  /** The page's decoded path. */
  path: string
  /** The request target as sent (its query holds the UTM parameters). */
  url: string
  /** The client's address: held in memory until the next flush hashes it with the day's salt; never written. */
  address: string
  userAgent: string | undefined
  referer: string | undefined
}

/** What a page view is counted for besides the day: `kind` and `value` of a row of stats_items. */
export const ITEM_KINDS = ['page', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign', 'device', 'browser'] as const
export type ItemKind = (typeof ITEM_KINDS)[number]

const SEP = '\u0000'
const DAY_MS = 86_400_000
/** Page views waiting for their day's salt (only before the first one is read); beyond this they are dropped. */
const UNSALTED_MAX = 50_000
/** The length of a kept value (a path, a host, a UTM value). */
const VALUE_MAX = 200

/** One visitor (an address with a user agent) of a site's day since the last flush. */
interface Visitor {
  /** The `device\0…` and `browser\0…` keys of their user agent. */
  device: string
  browser: string
  /** The paths they viewed. */
  pages: Set<string>
  /** The `kind\0value` keys of the referrers and campaigns they came by. */
  sources: Set<string>
}

/**
 * The counts of one site on one day since the last flush. Visitors are kept by address and user
 * agent until the flush hashes them (once each, not once per page view); the addresses never
 * leave the process.
 */
interface SiteDay {
  siteId: string
  day: string
  salt: string
  pageviews: number
  /** path → page views. */
  pages: Map<string, number>
  /** `kind\0value` → page views, for devices, browsers, referrers and campaigns. */
  items: Map<string, number>
  /** address → user agent → what they were seen for. */
  visitors: Map<string, Map<string, Visitor>>
}

export interface VisitTallyOptions {
  log: Logger
  /** The clock (ms since the epoch); tests move it across midnight. */
  now?: () => number
}

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

const newSiteDay = (siteId: string, day: string, salt: string): SiteDay => ({
  siteId,
  day,
  salt,
  pageviews: 0,
  pages: new Map(),
  items: new Map(),
  visitors: new Map(),
})

function countSource(entry: SiteDay, visitor: Visitor, key: string): void {
  entry.items.set(key, (entry.items.get(key) ?? 0) + 1)
  visitor.sources.add(key)
}

function mergeSiteDay(entry: SiteDay, old: SiteDay): void {
  entry.pageviews += old.pageviews
  for (const [path, n] of old.pages) entry.pages.set(path, (entry.pages.get(path) ?? 0) + n)
  for (const [item, n] of old.items) entry.items.set(item, (entry.items.get(item) ?? 0) + n)
  for (const [address, agents] of old.visitors) {
    const now = entry.visitors.get(address)
    if (!now) {
      entry.visitors.set(address, agents)
      continue
    }
    for (const [userAgent, visitor] of agents) {
      const seen = now.get(userAgent)
      if (!seen) now.set(userAgent, visitor)
      else {
        for (const path of visitor.pages) seen.pages.add(path)
        for (const source of visitor.sources) seen.sources.add(source)
      }
    }
  }
}

/**
 * Counts page views in memory and adds them to the daily roll-ups (stats_days, stats_items) in one
 * transaction per flush, so the page path never waits for the database and a crash loses only
 * what came since the last flush. A visitor is a hash of the day's salt (shared through the
 * database by every instance), the site, the address and the user agent; each instance adds the
 * hashes it saw to stats_seen and counts only those the database did not have yet, so visitors
 * seen by several instances are counted once.
 */
export class VisitTally {
  readonly #db: Db
  readonly #log: Logger
  readonly #now: () => number
  /** day → site → counts. */
  #tally = new Map<string, Map<string, SiteDay>>()
  #salts = new Map<string, string>()
  #unsalted: Array<{ visit: PageVisit; day: string }> = []
  #day = ''
  #dayEnds = 0
  #timer: NodeJS.Timeout | undefined
  #flushing: Promise<void> = Promise.resolve()
  #purgedBefore = ''

  constructor(db: Db, options: VisitTallyOptions) {
    this.#db = db
    this.#log = options.log
    this.#now = options.now ?? Date.now
  }

  /** Counts a page view (a GET of a published HTML page by a browser, not a prefetch); bots are left out here. */
  record(visit: PageVisit): void {
    const agent = classifyAgent(visit.userAgent)
    if (agent.bot) return
    const now = this.#now()
    if (now >= this.#dayEnds || now < this.#dayEnds - DAY_MS) {
      this.#day = dayOf(now)
      this.#dayEnds = Date.parse(`${this.#day}T00:00:00Z`) + DAY_MS
    }
    const day = this.#day
    const salt = this.#salts.get(day)
    if (salt === undefined) {
      if (this.#unsalted.length < UNSALTED_MAX) this.#unsalted.push({ visit, day })
      return
    }
    this.#add(visit, day, salt, agent)
  }

  // The page path: no string is built and nothing is hashed for a page view of a known visitor
  // without a referrer or campaign, only maps looked up and counts raised.
  #add(visit: PageVisit, day: string, salt: string, agent: AgentClass): void {
    let sites = this.#tally.get(day)
    if (!sites) this.#tally.set(day, (sites = new Map()))
    let entry = sites.get(visit.siteId)
    if (!entry) sites.set(visit.siteId, (entry = newSiteDay(visit.siteId, day, salt)))
    const userAgent = visit.userAgent ?? ''
    let agents = entry.visitors.get(visit.address)
    if (!agents) entry.visitors.set(visit.address, (agents = new Map()))
    let visitor = agents.get(userAgent)
    if (!visitor) {
      visitor = { device: `device${SEP}${agent.device}`, browser: `browser${SEP}${agent.browser}`, pages: new Set(), sources: new Set() }
      agents.set(userAgent, visitor)
    }
    entry.pageviews++
    const path = visit.path.length > VALUE_MAX ? visit.path.slice(0, VALUE_MAX) : visit.path
    entry.pages.set(path, (entry.pages.get(path) ?? 0) + 1)
    visitor.pages.add(path)
    entry.items.set(visitor.device, (entry.items.get(visitor.device) ?? 0) + 1)
    entry.items.set(visitor.browser, (entry.items.get(visitor.browser) ?? 0) + 1)
    const referrer = referrerHost(visit.referer, visit.host)
    if (referrer) countSource(entry, visitor, `referrer${SEP}${referrer.slice(0, VALUE_MAX)}`)
    const campaign = campaignOf(visit.url)
    if (campaign?.source) countSource(entry, visitor, `utm_source${SEP}${campaign.source}`)
    if (campaign?.medium) countSource(entry, visitor, `utm_medium${SEP}${campaign.medium}`)
    if (campaign?.campaign) countSource(entry, visitor, `utm_campaign${SEP}${campaign.campaign}`)
  }

  /** Reads the salts of today and tomorrow, then flushes every `intervalMs`. */
  async start(intervalMs: number): Promise<void> {
    await this.#prepareSalts().catch((error: unknown) => this.#log.warn({ err: error }, 'reading the statistics salt failed'))
    this.#timer = setInterval(() => void this.flush(), intervalMs)
    this.#timer.unref()
  }

  /** Stops the timer and flushes what is left (on shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.flush()
  }

  /** Adds the counts so far to the roll-ups; one flush at a time. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() =>
      this.#flushOnce().catch((error: unknown) =>
        this.#log.warn({ err: error }, 'flushing visitor statistics failed; kept for the next flush'),
      ),
    )
    return this.#flushing
  }

  async #flushOnce(): Promise<void> {
    await this.#prepareSalts()
    if (this.#unsalted.length > 0) {
      const waiting = this.#unsalted
      this.#unsalted = []
      for (const { visit, day } of waiting) {
        const salt = this.#salts.get(day)
        if (salt !== undefined) this.#add(visit, day, salt, classifyAgent(visit.userAgent))
      }
    }
    if (this.#tally.size > 0) {
      const batch = this.#tally
      this.#tally = new Map()
      try {
        await writeTally(
          this.#db,
          [...batch.values()].flatMap((sites) => [...sites.values()]),
        )
      } catch (error) {
        this.#merge(batch)
        throw error
      }
    }
    await this.#purgeOldDays()
  }

  /** Puts a batch that could not be written back, to go with the next flush. */
  #merge(batch: Map<string, Map<string, SiteDay>>): void {
    for (const [day, sites] of batch) {
      let now = this.#tally.get(day)
      if (!now) this.#tally.set(day, (now = new Map()))
      for (const [siteId, old] of sites) {
        const entry = now.get(siteId)
        if (!entry) now.set(siteId, old)
        else mergeSiteDay(entry, old)
      }
    }
  }

  /** Today's and tomorrow's salts, made by whichever instance asks first; a page view at midnight finds the next one ready. */
  async #prepareSalts(): Promise<void> {
    const now = this.#now()
    for (const day of [dayOf(now), dayOf(now + DAY_MS)]) {
      if (!this.#salts.has(day)) this.#salts.set(day, await daySalt(this.#db, day))
    }
    for (const day of this.#salts.keys()) if (day < dayOf(now - DAY_MS)) this.#salts.delete(day)
  }

  /**
   * Once a day is over its salt is deleted (the database's and this instance's copy), and the
   * visitor hashes of the day a few minutes later (counts of the day still in flight on other
   * instances are then still counted once).
   */
  async #purgeOldDays(): Promise<void> {
    const now = this.#now()
    const today = dayOf(now)
    for (const day of this.#salts.keys()) if (day < today) this.#salts.delete(day)
    const before = dayOf(now - 5 * 60_000)
    if (this.#purgedBefore === `${today}/${before}`) return
    await forgetDaysBefore(this.#db, today, before)
    this.#purgedBefore = `${today}/${before}`
  }
}

/** The hash that stands for a visitor on one day: unlinkable to the address, and to other days once the salt is gone. */
export function visitorHash(salt: string, siteId: string, address: string, userAgent: string): string {
  // One-shot: one call into the native hash per page view (the same digest as the four parts fed in turn).
  return hash('sha256', salt + SEP + siteId + SEP + address + SEP + userAgent, 'base64url').slice(0, 22)
}

/** The salt of a day, made now if no instance has made it yet. */
export async function daySalt(db: Db, day: string): Promise<string> {
  await db
    .insertInto('stats_salts')
    .values({ day, salt: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('day').doNothing())
    .execute()
  const row = await db.selectFrom('stats_salts').select('salt').where('day', '=', day).executeTakeFirstOrThrow()
  return row.salt
}

/** Deletes the salts of days before `saltsBefore` and the visitor hashes of days before `seenBefore`. */
export async function forgetDaysBefore(db: Db, saltsBefore: string, seenBefore: string): Promise<void> {
  await db.deleteFrom('stats_salts').where('day', '<', saltsBefore).execute()
  await db.deleteFrom('stats_seen').where('day', '<', seenBefore).execute()
}

/**
 * Adds a batch of counts to the roll-ups in one transaction: the visitor hashes first (those
 * already there were counted before, by this instance or another), then page views and the new
 * visitors per item and per day. Rows go in key order, so two instances never wait on each other in
 * opposite orders; a site deleted meanwhile is skipped.
 */
async function writeTally(db: Db, batch: SiteDay[]): Promise<void> {
  const seen = { site: [] as string[], day: [] as string[], visitor: [] as string[], kind: [] as string[], value: [] as string[] }
  for (const entry of batch) {
    const add = (visitor: string, kind: string, value: string) => {
      seen.site.push(entry.siteId)
      seen.day.push(entry.day)
      seen.visitor.push(visitor)
      seen.kind.push(kind)
      seen.value.push(value)
    }
    for (const [address, agents] of entry.visitors) {
      for (const [userAgent, visitor] of agents) {
        const hashed = visitorHash(entry.salt, entry.siteId, address, userAgent)
        add(hashed, 'day', '')
        for (const path of visitor.pages) add(hashed, 'page', path)
        for (const item of [visitor.device, visitor.browser, ...visitor.sources]) {
          const sep = item.indexOf(SEP)
          add(hashed, item.slice(0, sep), item.slice(sep + 1))
        }
      }
    }
  }
  await db.transaction().execute(async (trx) => {
    const { rows: fresh } = await sql<{ site_id: string; day: string; kind: string; value: string; n: number }>`
      with fresh as (
        insert into stats_seen (site_id, day, visitor, kind, value)
        select u.s, u.d::date, u.v, u.k, u.x
        from unnest(${seen.site}::text[], ${seen.day}::text[], ${seen.visitor}::text[], ${seen.kind}::text[], ${seen.value}::text[]) as u(s, d, v, k, x)
        order by u.d, u.s, u.v, u.k, u.x
        on conflict do nothing
        returning site_id, day, kind, value
      )
      select site_id, day::text as day, kind, value, count(*)::int as n from fresh group by 1, 2, 3, 4`.execute(trx)
    const newVisitors = new Map<string, number>()
    for (const row of fresh) newVisitors.set(row.site_id + SEP + row.day + SEP + row.kind + SEP + row.value, row.n)

    const days = { site: [] as string[], day: [] as string[], pageviews: [] as number[], visitors: [] as number[] }
    const items = {
      site: [] as string[],
      day: [] as string[],
      kind: [] as string[],
      value: [] as string[],
      pageviews: [] as number[],
      visitors: [] as number[],
    }
    for (const entry of batch) {
      const prefix = entry.siteId + SEP + entry.day + SEP
      days.site.push(entry.siteId)
      days.day.push(entry.day)
      days.pageviews.push(entry.pageviews)
      days.visitors.push(newVisitors.get(`${prefix}day${SEP}`) ?? 0)
      const addItem = (kind: string, value: string, pageviews: number) => {
        items.site.push(entry.siteId)
        items.day.push(entry.day)
        items.kind.push(kind)
        items.value.push(value)
        items.pageviews.push(pageviews)
        items.visitors.push(newVisitors.get(prefix + kind + SEP + value) ?? 0)
      }
      for (const [path, pageviews] of entry.pages) addItem('page', path, pageviews)
      for (const [item, pageviews] of entry.items) {
        const sep = item.indexOf(SEP)
        addItem(item.slice(0, sep), item.slice(sep + 1), pageviews)
      }
    }
    await sql`
      insert into stats_days (site_id, day, pageviews, visitors)
      select u.s, u.d::date, u.p, u.v
      from unnest(${days.site}::text[], ${days.day}::text[], ${days.pageviews}::int8[], ${days.visitors}::int8[]) as u(s, d, p, v)
      join sites on sites.id = u.s
      order by u.s, u.d
      on conflict (site_id, day) do update
        set pageviews = stats_days.pageviews + excluded.pageviews, visitors = stats_days.visitors + excluded.visitors`.execute(trx)
    await sql`
      insert into stats_items (site_id, day, kind, value, pageviews, visitors)
      select u.s, u.d::date, u.k, u.x, u.p, u.v
      from unnest(${items.site}::text[], ${items.day}::text[], ${items.kind}::text[], ${items.value}::text[], ${items.pageviews}::int8[], ${items.visitors}::int8[]) as u(s, d, k, x, p, v)
      join sites on sites.id = u.s
      order by u.s, u.k, u.d, u.x
      on conflict (site_id, kind, day, value) do update
        set pageviews = stats_items.pageviews + excluded.pageviews, visitors = stats_items.visitors + excluded.visitors`.execute(trx)
  })
}

/** Counts a conversion (a contact-form message or an assistant's lead) for a site's current day, in the caller's transaction. */
export async function countConversion(db: Db, siteId: string): Promise<void> {
  await sql`
    insert into stats_days (site_id, day, conversions) values (${siteId}, (now() at time zone 'UTC')::date, 1)
    on conflict (site_id, day) do update set conversions = stats_days.conversions + 1`.execute(db)
}
