import { request } from 'undici'
import type { CruxDate, CruxHistoryMetric, CruxMetric } from './metrics.ts'

export type FormFactor = 'PHONE' | 'DESKTOP'

export interface CruxRecord {
  key: { origin?: string; formFactor?: FormFactor }
  metrics: Record<string, CruxMetric>
  collectionPeriod?: { firstDate: CruxDate; lastDate: CruxDate }
}

export interface CruxHistoryRecord {
  key: { origin?: string; formFactor?: FormFactor }
  metrics: Record<string, CruxHistoryMetric>
  collectionPeriods?: Array<{ firstDate: CruxDate; lastDate: CruxDate }>
}

/** CrUX could not answer (quota, outage): the route answers 503 with `retryAfterSeconds`. */
export class CruxUnavailableError extends Error {
  readonly retryAfterSeconds: number
  constructor(message: string, retryAfterSeconds: number) {
    super(message)
    this.name = 'CruxUnavailableError'
    this.retryAfterSeconds = retryAfterSeconds
  }
}

const TIMEOUT_MS = 10_000

export interface CruxClient {
  /** records:queryRecord; undefined when CrUX has no data for the origin (its 404). */
  queryRecord(origin: string, formFactor: FormFactor): Promise<CruxRecord | undefined>
  /** records:queryHistoryRecord; undefined when CrUX has no data. */
  queryHistoryRecord(origin: string, formFactor: FormFactor): Promise<CruxHistoryRecord | undefined>
}

export function createCruxClient(apiUrl: string, apiKey: string): CruxClient {
  const base = apiUrl.replace(/\/$/, '')
  async function call<T>(method: string, body: object): Promise<T | undefined> {
    const url = `${base}/records:${method}?key=${encodeURIComponent(apiKey)}`
    let status: number
    let retryAfter: string | undefined
    let answer: unknown
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
      status = response.statusCode
      retryAfter = response.headers['retry-after'] as string | undefined
      answer = await response.body.json().catch(() => undefined)
    } catch (error) {
      throw new CruxUnavailableError(`The Chrome UX Report API did not answer (${(error as Error).name})`, 30)
    }
    if (status === 404) return undefined
    if (status === 429 || status >= 500) {
      const seconds = Number(retryAfter)
      throw new CruxUnavailableError(
        `The Chrome UX Report API is unavailable (HTTP ${status})`,
        Number.isFinite(seconds) && seconds >= 1 ? Math.ceil(seconds) : 60,
      )
    }
    if (status !== 200) throw new CruxUnavailableError(`The Chrome UX Report API refused the request (HTTP ${status})`, 300)
    return (answer as { record?: T } | undefined)?.record
  }
  return {
    queryRecord: (origin, formFactor) => call<CruxRecord>('queryRecord', { origin, formFactor }),
    queryHistoryRecord: (origin, formFactor) => call<CruxHistoryRecord>('queryHistoryRecord', { origin, formFactor }),
  }
}
