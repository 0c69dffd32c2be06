import { createHash } from 'node:crypto'
import * as cheerio from 'cheerio'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { retractBacklink, storeBacklink } from '../domain/sites/backlinks.ts'
import { errors } from '../errors.ts'
import { newId } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import { FetchError, type SafeFetcher } from '../infra/fetcher.ts'
import type { JobDefinition, NamedJob } from '../infra/jobs.ts'
import { routeLimit } from '../infra/rate-limit/budgets.ts'
import { siteOfRequest } from './hosted-site.ts'
import type { LiveSites } from './live-sites.ts'

/** The job that verifies a received Webmention; payload `{site_id, source, target}`. */
export const WEBMENTION_JOB = 'site.webmention'

interface MentionJob {
  site_id: string
  source: string
  target: string
}

const MentionBody = Type.Object({
  source: Type.String({ minLength: 1, maxLength: 2048 }),
  target: Type.String({ minLength: 1, maxLength: 2048 }),
})
type MentionBody = Static<typeof MentionBody>

function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

/** Same resource for the comparison of W3C Webmention 3.2.2: fragments do not count. */
function sameResource(a: URL, b: URL): boolean {
  return a.href.replace(/#.*$/, '') === b.href.replace(/#.*$/, '')
}

/**
 * W3C Webmention 3.2 (receiving): source and target are http(s) URLs, not the same; the target is
 * on an active domain of the site or under its preview URL. The check of the source is made later,
 * by a job, and the sender gets 202 Accepted at once.
 */
export default async function webmentionRoutes(app: FastifyInstance, options: { live: LiveSites }) {
  const { live } = options
  const handler = async (request: FastifyRequest<{ Body: MentionBody }>, reply: FastifyReply) => {
    const origin = siteOfRequest(request, live)
    if (!origin) throw new errors.notFound('No published site answers here')
    const source = httpUrl(request.body.source)
    const target = httpUrl(request.body.target)
    if (!source) throw new errors.validationFailed('source: must be an http or https URL')
    if (!target) throw new errors.validationFailed('target: must be an http or https URL')
    if (sameResource(source, target)) throw new errors.validationFailed('source and target must differ')
    const preview = `${app.config.BASE_URL}/s/${origin.siteId}/`
    const onSite =
      live.hostsOf(origin.siteId).includes(target.hostname.toLowerCase()) ||
      target.href.startsWith(preview) ||
      target.href === preview.slice(0, -1)
    if (!onSite) throw new errors.validationFailed('target: not a page of this site')
    const job: MentionJob = { site_id: origin.siteId, source: source.href, target: target.href }
    // A sender that repeats itself while a check is pending is folded into that check.
    const key = createHash('sha256').update(`${job.site_id}\n${job.source}\n${job.target}`).digest('hex')
    await app.jobs.enqueue(WEBMENTION_JOB, job, { uniqueKey: key })
    return reply.code(202).type('text/plain; charset=utf-8').send('Accepted: the mention will be verified')
  }
  const route = {
    config: { operation: 'sites.webmention', ...routeLimit(app.config, 'sites.webmention') },
    schema: { hide: true, body: MentionBody },
  }
  app.post('/_wps/webmention', route, handler)
  app.post('/s/:siteId/_wps/webmention', route, handler)
}

/** True when the HTML at `base` links to `target` (an a, link, img, audio or video pointing at it). */
export function linksTo(html: string, base: string, target: string): boolean {
  const $ = cheerio.load(html)
  const wanted = new URL(target)
  return $('a[href], link[href], img[src], audio[src], video[src], source[src]')
    .toArray()
    .some((el) => {
      const value = $(el).attr('href') ?? $(el).attr('src')
      try {
        return value !== undefined && sameResource(new URL(value, base), wanted)
      } catch {
        return false
      }
    })
}

/** The job that fetches a Webmention's source and keeps or retracts the backlink it proves. */
export function webmentionJob(db: Db, fetcher: SafeFetcher): NamedJob<MentionJob> {
  const definition: JobDefinition<MentionJob> = {
    maxAttempts: 4,
    handler: async (mention, { log }) => {
      let result
      try {
        result = await fetcher.fetch(mention.source, { headers: { accept: 'text/html, */*;q=0.5' }, maxRedirects: 5, timeoutMs: 10_000 })
      } catch (error) {
        // The sender's server being away is worth another try; a refused address or bad URL is not.
        if (error instanceof FetchError && (error.code === 'timeout' || error.code === 'connection_failed' || error.code === 'dns_failed'))
          throw error
        log.info({ err: error, source: mention.source }, 'webmention refused: source cannot be fetched')
        return
      }
      const verified = result.status >= 200 && result.status < 300 && linksTo(result.text(), result.url, mention.target)
      if (verified) {
        await storeBacklink(db, mention)
        return
      }
      // A source that no longer links (or is gone) retracts a backlink it made earlier (Webmention 3.2.2).
      await retractBacklink(db, mention)
      log.info({ source: mention.source, status: result.status }, 'webmention refused: the source does not link to the target')
    },
  }
  return { name: WEBMENTION_JOB, definition }
}
