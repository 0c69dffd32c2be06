import { createHash } from 'node:crypto'

/**
 * A strong ETag of an item's representation (or of `source`, e.g. its id and updated_at): the
 * same bytes give the same tag on every instance, so If-Match works behind a load balancer, and
 * a dashboard form carrying it as its version is checked against the same tag /v1 hands out.
 */
export function etagOf(source: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(source)).digest('base64url').slice(0, 27)}"`
}

/**
 * RFC 9110 13.1.1: a change guarded by If-Match goes ahead only when one of the listed tags
 * (strong comparison) is the current one, or the list is `*`; without a list nothing is checked.
 * /v1 reads the list from the If-Match header, GraphQL from a mutation's `ifMatch` input.
 */
export function ifMatchHolds(list: string | null | undefined, currentEtag: string): boolean {
  if (list === undefined || list === null) return true
  const tags = list.split(',').map((tag) => tag.trim())
  return tags.includes('*') || tags.includes(currentEtag)
}
