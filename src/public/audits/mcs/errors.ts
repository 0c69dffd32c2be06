/** Why a Lighthouse run gave no result; the route maps `kind` to a status. */
export class McsRunError extends Error {
  /** unreachable: the site itself (422); unavailable: the provider (503). */
  readonly kind: 'unreachable' | 'unavailable'
  readonly retryAfterSeconds: number | undefined
  constructor(kind: 'unreachable' | 'unavailable', message: string, retryAfterSeconds?: number) {
    super(message)
    this.name = 'McsRunError'
    this.kind = kind
    this.retryAfterSeconds = retryAfterSeconds
  }
}
