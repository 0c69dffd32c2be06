import type { Logger } from 'pino'
import type { DataStore, Db, Unlisten } from '../infra/db.ts'
import { normaliseHostname } from '../domain/sites/sites.ts'
import { HOSTED_SITES_CHANNEL } from '../domain/sites/passages.ts'
import { subdomainHost } from '../domain/sites/subdomains.ts'
import { redirectsOfSites } from '../domain/sites/redirects.ts'
import { loadReleaseFiles, type ReleaseFile } from './release-store.ts'

/** Releases kept in memory; each is immutable, so one is only ever dropped to make room. */
const MAX_RELEASES = 200

export type Release = Map<string, ReleaseFile>

export interface HostedSite {
  siteId: string
  buildId: string
}

/** Where a redirect of a site sends visitors (DESIGN.md 19). */
export interface RedirectTarget {
  to: string
  status: 301 | 302
}

/**
 * What every hostname serves, kept in memory so a page costs no database round trip: the active
 * domains and the platform subdomains of live sites with their live build, each site's latest build for the preview, and the
 * releases themselves. A NOTIFY from the database (any change to a site's status or live build, its
 * domains or its builds) reloads that site's entries; a reconnect reloads everything.
 */
export class LiveSites {
  readonly #db: Db
  readonly #log: Logger
  readonly #sitesDomain: string
  #hosts = new Map<string, HostedSite>()
  #hostsBySite = new Map<string, string[]>()
  #previews = new Map<string, Promise<string | undefined>>()
  #redirects = new Map<string, Map<string, RedirectTarget>>()
  #releases = new Map<string, Release>()
  #loading = new Map<string, Promise<Release>>()
  #lastUsed: string | undefined
  // Reloads run one after another, so an older answer never overwrites a newer one.
  #queue: Promise<void> = Promise.resolve()
  #unlisten: Unlisten | undefined

  constructor(db: Db, log: Logger, sitesDomain: string) {
    this.#db = db
    this.#log = log
    this.#sitesDomain = sitesDomain
  }

  async start(store: DataStore): Promise<void> {
    this.#unlisten = await store.listen(HOSTED_SITES_CHANNEL, (siteId) => void this.refresh(siteId || undefined))
    await this.refresh()
  }

  async stop(): Promise<void> {
    await this.#unlisten?.()
  }

  /** Reloads one site's entries, or every entry when no site is named. */
  refresh(siteId?: string): Promise<void> {
    this.#queue = this.#queue
      .then(() => this.#reload(siteId))
      .catch((error: unknown) => this.#log.warn({ err: error, siteId }, 'reloading hosted sites failed'))
    return this.#queue
  }

  async #reload(siteId: string | undefined): Promise<void> {
    let domains = this.#db
      .selectFrom('domains')
      .innerJoin('sites', 'sites.id', 'domains.site_id')
      .select(['domains.hostname', 'sites.id as site_id', 'sites.live_build_id'])
      .where('domains.status', '=', 'active')
      .where('sites.status', '=', 'live')
      .where('sites.live_build_id', 'is not', null)
    let subdomains = this.#db
      .selectFrom('sites')
      .select(['slug', 'id as site_id', 'live_build_id'])
      .where('status', '=', 'live')
      .where('live_build_id', 'is not', null)
    if (siteId) {
      domains = domains.where('sites.id', '=', siteId)
      subdomains = subdomains.where('id', '=', siteId)
    }
    const [domainRows, slugRows] = await Promise.all([domains.execute(), subdomains.execute()])
    const redirectRows = await redirectsOfSites(this.#db, [...new Set(slugRows.map((r) => r.site_id))])
    const rows = [
      ...slugRows.map((r) => ({ hostname: subdomainHost(r.slug, this.#sitesDomain), site_id: r.site_id, live_build_id: r.live_build_id })),
      ...domainRows,
    ]
    if (siteId) {
      for (const host of this.#hostsBySite.get(siteId) ?? []) this.#hosts.delete(host)
      this.#hostsBySite.delete(siteId)
      this.#previews.delete(siteId)
      this.#redirects.delete(siteId)
    } else {
      this.#hosts = new Map()
      this.#hostsBySite = new Map()
      this.#previews = new Map()
      this.#redirects = new Map()
    }
    for (const row of redirectRows) {
      let ofSite = this.#redirects.get(row.site_id)
      if (!ofSite) this.#redirects.set(row.site_id, (ofSite = new Map()))
      ofSite.set(row.from_path, { to: row.to_target, status: row.status })
    }
    for (const row of rows) {
      const host = normaliseHostname(row.hostname)
      this.#hosts.set(host, { siteId: row.site_id, buildId: row.live_build_id! })
      this.#hostsBySite.set(row.site_id, [...(this.#hostsBySite.get(row.site_id) ?? []), host])
    }
  }

  /** The live site an (already normalised) hostname serves, if any. */
  byHost(hostname: string): HostedSite | undefined {
    return this.#hosts.get(hostname)
  }

  /**
   * The redirect a live site has for a (decoded) path its release holds no file for: the path as
   * asked, or without its trailing slash.
   */
  redirectOf(siteId: string, path: string): RedirectTarget | undefined {
    const ofSite = this.#redirects.get(siteId)
    if (!ofSite) return undefined
    return ofSite.get(path) ?? (path.length > 1 && path.endsWith('/') ? ofSite.get(path.slice(0, -1)) : undefined)
  }

  /** The hostnames a site is served on now. */
  hostsOf(siteId: string): readonly string[] {
    return this.#hostsBySite.get(siteId) ?? []
  }

  /** The latest succeeded build of a site, what its preview shows. */
  previewBuild(siteId: string): Promise<string | undefined> {
    let build = this.#previews.get(siteId)
    if (!build) {
      build = this.#db
        .selectFrom('builds')
        .select('id')
        .where('site_id', '=', siteId)
        .where('status', '=', 'succeeded')
        .orderBy('finished_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst()
        .then((row) => row?.id)
      build.catch(() => this.#previews.delete(siteId))
      this.#previews.set(siteId, build)
    }
    return build
  }

  /** A release's files if they are in memory (marked as just used), else undefined. */
  loadedRelease(buildId: string): Release | undefined {
    const ready = this.#releases.get(buildId)
    // Most requests are for the release used last: it is already the last to be dropped.
    if (ready && buildId !== this.#lastUsed) {
      this.#releases.delete(buildId)
      this.#releases.set(buildId, ready)
      this.#lastUsed = buildId
    }
    return ready
  }

  /** A release's files, loaded once and kept (least recently used dropped first). */
  release(buildId: string): Release | Promise<Release> {
    const ready = this.loadedRelease(buildId)
    if (ready) return ready
    let loading = this.#loading.get(buildId)
    if (!loading) {
      loading = loadReleaseFiles(this.#db, buildId).then((files) => {
        this.#releases.set(buildId, files)
        this.#lastUsed = buildId
        if (this.#releases.size > MAX_RELEASES) this.#releases.delete(this.#releases.keys().next().value!)
        return files
      })
      const settled = () => this.#loading.delete(buildId)
      loading.then(settled, settled)
      this.#loading.set(buildId, loading)
    }
    return loading
  }
}
