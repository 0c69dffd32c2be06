import { createHash } from 'node:crypto'

/**
 * A strong ETag of an item's representation (or of `source`, e.g. its id and updated_at): the
 * same bytes give the same tag on every instance, so If-Match works behind a load balancer, and
 * a dashboard form carrying it as its version is checked against the same tag /v1 hands out.
 */
export function etagOf(source: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(source)).digest('base64url').slice(0, 27)}"`
}
