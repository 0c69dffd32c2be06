import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { McsRunError } from './errors.ts'
import { RunQueue } from './queue.ts'
import type { ChildRequest } from './lighthouse-child.ts'
import type { LighthouseReport } from './result.ts'

export interface McsProvider {
  name: 'local' | 'psi'
  queue: RunQueue
  /** `addresses` are the checked addresses of the URL's host (the local run reaches it there only). */
  run(url: string, addresses: string[]): Promise<LighthouseReport>
}

const CHILD = fileURLToPath(new URL('./lighthouse-child.ts', import.meta.url))
const LOCAL_TIMEOUT_MS = 120_000
const PSI_TIMEOUT_MS = 90_000

function failed(report: LighthouseReport): LighthouseReport {
  // Lighthouse still answers when the page could not be loaded; its runtime error says so.
  if (report.runtime_error) throw new McsRunError('unreachable', `Lighthouse could not load the page: ${report.runtime_error}`)
  return report
}

/**
 * Local Lighthouse driving the system Chromium, one run at a time, each in its own child process
 * that is killed if it overruns. Every other request of the page passes the address guard, with
 * private addresses allowed only when `allowPrivateNetworks` is.
 */
export function localProvider(
  chromePath: string,
  options: { maxWaiting?: number; timeoutMs?: number; allowPrivateNetworks?: boolean } = {},
): McsProvider {
  const queue = new RunQueue({ concurrency: 1, maxWaiting: options.maxWaiting ?? 3, expectedMs: 20_000 })
  const timeoutMs = options.timeoutMs ?? LOCAL_TIMEOUT_MS
  return {
    name: 'local',
    queue,
    run: (url, addresses) =>
      queue.run(
        () =>
          new Promise<LighthouseReport>((resolve, reject) => {
            const target = new URL(url)
            const pinned = {
              host: target.hostname.replace(/^\[|\]$/g, ''),
              port: Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
              addresses,
            }
            const child = fork(CHILD, [], { execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] })
            let settled = false
            const settle = (fn: () => void) => {
              if (settled) return
              settled = true
              clearTimeout(timer)
              fn()
            }
            const timer = setTimeout(() => {
              child.kill('SIGTERM')
              setTimeout(() => child.kill('SIGKILL'), 5000).unref()
              settle(() => reject(new McsRunError('unavailable', `Lighthouse did not finish within ${timeoutMs / 1000} s`, 60)))
            }, timeoutMs)
            child.once('message', (message: { ok: boolean; lhr?: LighthouseReport; error?: string }) => {
              settle(() => {
                if (message.ok && message.lhr) {
                  try {
                    resolve(failed(message.lhr))
                  } catch (error) {
                    reject(error)
                  }
                } else reject(new McsRunError('unavailable', `Lighthouse failed: ${message.error ?? 'no result'}`, 60))
              })
            })
            child.once('error', (error) =>
              settle(() => reject(new McsRunError('unavailable', `Lighthouse could not start: ${error.message}`, 60))),
            )
            child.once('exit', (code) =>
              settle(() => reject(new McsRunError('unavailable', `Lighthouse exited without a result (${code})`, 60))),
            )
            child.send({ url, chromePath, pinned, allowPrivateNetworks: options.allowPrivateNetworks === true } satisfies ChildRequest)
          }),
      ),
  }
}

interface PsiAnswer {
  lighthouseResult?: {
    lighthouseVersion?: string
    finalDisplayedUrl?: string
    finalUrl?: string
    runtimeError?: { code?: string; message?: string }
    categories?: Record<string, { score: number | null }>
    audits?: Record<string, { numericValue?: number; score: number | null }>
  }
  error?: { code?: number; message?: string }
}

/** PageSpeed Insights v5 (runPagespeed), mobile strategy, the four classic categories. */
export function psiProvider(apiUrl: string, apiKey: string, options: { maxWaiting?: number; timeoutMs?: number } = {}): McsProvider {
  const queue = new RunQueue({ concurrency: 2, maxWaiting: options.maxWaiting ?? 4, expectedMs: 15_000 })
  const timeoutMs = options.timeoutMs ?? PSI_TIMEOUT_MS
  return {
    name: 'psi',
    queue,
    run: (url) =>
      queue.run(async () => {
        const endpoint = new URL(`${apiUrl.replace(/\/$/, '')}/runPagespeed`)
        endpoint.searchParams.set('url', url)
        endpoint.searchParams.set('strategy', 'mobile')
        for (const category of ['PERFORMANCE', 'ACCESSIBILITY', 'BEST_PRACTICES', 'SEO']) endpoint.searchParams.append('category', category)
        endpoint.searchParams.set('key', apiKey)
        let status: number
        let body: PsiAnswer
        let retryAfter: string | undefined
        try {
          const response = await request(endpoint, {
            method: 'GET',
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
            signal: AbortSignal.timeout(timeoutMs),
          })
          status = response.statusCode
          retryAfter = response.headers['retry-after'] as string | undefined
          body = (await response.body.json().catch(() => ({}))) as PsiAnswer
        } catch (error) {
          throw new McsRunError('unavailable', `PageSpeed Insights did not answer (${(error as Error).name})`, 30)
        }
        if (status === 429 || status >= 500) {
          const seconds = Number(retryAfter)
          throw new McsRunError(
            'unavailable',
            `PageSpeed Insights is unavailable (HTTP ${status})`,
            Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60,
          )
        }
        if (status === 400 && /lighthouse returned error/i.test(body.error?.message ?? '')) {
          throw new McsRunError('unreachable', `PageSpeed Insights could not load the page: ${body.error?.message ?? ''}`.trim())
        }
        const lhr = body.lighthouseResult
        if (status !== 200 || !lhr?.categories)
          throw new McsRunError('unavailable', `PageSpeed Insights refused the request (HTTP ${status})`, 60)
        const categories: Record<string, number | null> = {}
        for (const [id, category] of Object.entries(lhr.categories)) categories[id] = category.score
        return failed({
          lighthouse_version: lhr.lighthouseVersion ?? 'unknown',
          final_url: lhr.finalDisplayedUrl ?? lhr.finalUrl ?? url,
          runtime_error:
            lhr.runtimeError?.code && lhr.runtimeError.code !== 'NO_ERROR'
              ? (lhr.runtimeError.message ?? lhr.runtimeError.code)
              : undefined,
          categories,
          audits: lhr.audits ?? {},
        })
      }),
  }
}
