import type { SafeFetcher } from '../../infra/fetcher.ts'

export class PublishError extends Error {
  /** False for answers a retry cannot change (bad credentials, refused text). */
  readonly retryable: boolean
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined
  /** The `error` name of an XRPC error body (e.g. ExpiredToken), when there was one. */
  readonly code: string | undefined
  constructor(message: string, retryable: boolean, status?: number, code?: string) {
    super(message)
    this.retryable = retryable
    this.status = status
    this.code = code
  }
}

/** A POST of JSON (or of nothing) to a network's API through the SSRF-safe fetcher; the answer's JSON, or a PublishError. */
export async function postJson(
  fetcher: SafeFetcher,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetcher.fetch(url, {
    method: 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), accept: 'application/json', ...headers },
    maxRedirects: 0,
    timeoutMs: 15_000,
  })
  let parsed: unknown
  try {
    parsed = JSON.parse(res.text())
  } catch {
    parsed = undefined
  }
  const json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined
  if (res.status < 200 || res.status >= 300) {
    const code = typeof json?.['error'] === 'string' ? json['error'].slice(0, 100) : undefined
    throw new PublishError(
      `${new URL(url).pathname} answered ${res.status}${code ? ` ${code}` : ''}`,
      res.status >= 500 || res.status === 429,
      res.status,
      code,
    )
  }
  if (!json) throw new PublishError(`${new URL(url).pathname} answered with something other than JSON`, true, res.status)
  return json
}
