import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from '../../infra/db.ts'
import { type AgentClass, classifyAgent } from './classify.ts'
import { type PageVisit, SEP, SiteDay, type SiteDayCounts } from './site-day.ts'

/** What a page view is counted for besides the day: `kind` and `value` of a row of stats_items. */
export const ITEM_KINDS = ['page', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign', 'device', 'browser'] as const
export type ItemKind = (typeof ITEM_KINDS)[number]

const DAY_MS = 86_400_000
/** Page views waiting for their day's salt (only before the first one is read); beyond this they are dropped. */
const UNSALTED_MAX = 50_000
/** The visitors an instance keeps in memory across its sites' days (about 0.5 kB each) before it forgets those already written. */
const REMEMBERED_MAX = 100_000

export interface VisitTallyOptions {
  log: Logger
  /** The clock (ms since the epoch); tests move it across midnight. */
  now?: () => number
  /** The visitors kept in memory before those already written are forgotten (REMEMBERED_MAX). */
  rememberedMax?: number
}

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/**
 * Counts page views in memory and adds them to the daily roll-ups (stats_days, stats_items) in one
 * transaction per flush, so the page path never waits for the database and a crash loses only
 * what came since the last flush. A visitor is a hash of the day's salt (shared through the
 * database by every instance), the site, the address and the user agent; each instance adds to
 * stats_seen what it newly saw a visitor for (the day, a page, a referrer: site-day.ts) and counts
 * only the rows the database did not have yet, so visitors seen by several instances are counted
 * once.
 */
export class VisitTally {
  readonly #db: Db
  readonly #log: Logger
  readonly #now: () => number
  readonly #rememberedMax: number
  /** day → site → its page views. */
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
    this.#rememberedMax = options.rememberedMax ?? REMEMBERED_MAX
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

  #add(visit: PageVisit, day: string, salt: string, agent: AgentClass): void {
    let sites = this.#tally.get(day)
    if (!sites) this.#tally.set(day, (sites = new Map()))
    let entry = sites.get(visit.siteId)
    if (!entry) sites.set(visit.siteId, (entry = new SiteDay(visit.siteId, day, salt)))
    entry.add(visit, agent)
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
    const entries = [...this.#tally.values()].flatMap((sites) => [...sites.values()])
    const taken = entries.flatMap((entry) => {
      const counts = entry.take()
      return counts ? [{ entry, counts }] : []
    })
    if (taken.length > 0) {
      try {
        await writeTally(
          this.#db,
          taken.map((t) => t.counts),
        )
      } catch (error) {
        for (const { entry, counts } of taken) entry.restore(counts)
        throw error
      }
    }
    this.#forget()
    await this.#purgeOldDays()
  }

  /** Drops the days that are over once written, and bounds the visitors kept in memory. */
  #forget(): void {
    const today = dayOf(this.#now())
    for (const [day, sites] of this.#tally) if (day < today && [...sites.values()].every((entry) => entry.settled)) this.#tally.delete(day)
    const entries = [...this.#tally.values()].flatMap((sites) => [...sites.values()])
    if (entries.reduce((sum, entry) => sum + entry.remembered, 0) > this.#rememberedMax) for (const entry of entries) entry.forgetWritten()
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
async function writeTally(db: Db, batch: SiteDayCounts[]): Promise<void> {
  const seen = { site: [] as string[], day: [] as string[], visitor: [] as string[], kind: [] as string[], value: [] as string[] }
  for (const entry of batch) {
    for (const { hash, keys } of entry.seen) {
      for (const key of keys) {
        const sep = key.indexOf(SEP)
        seen.site.push(entry.siteId)
        seen.day.push(entry.day)
        seen.visitor.push(hash)
        seen.kind.push(key.slice(0, sep))
        seen.value.push(key.slice(sep + 1))
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
