import type { Keyring } from '../infra/crypto.ts'

const CONTEXT = 'sites.form-token'

/** Sooner than this after its page was served, a post is a script's, not a person's (who reads and types first). */
export const FORM_MIN_AGE_MS = 2000
/** A form opened longer ago than this is sent again with a fresh token (what was typed is kept). */
export const FORM_MAX_AGE_MS = 12 * 3600_000

/**
 * Where a release's page carries its contact form's token. Pages are built once, but the token
 * says when the page was served: it is put in the page's place as it is served (serve-file.ts).
 */
export const FORM_TOKEN_SLOT = 'wps-form-token-slot-5c1e0a'

/**
 * The token a hosted contact form carries: the site id and the time its page was served, sealed
 * with the data key (AES-256-GCM, so it can be neither forged, nor moved to another site, nor
 * re-dated). A post is taken only between FORM_MIN_AGE_MS and FORM_MAX_AGE_MS after that time.
 */
export function signFormToken(keyring: Keyring, siteId: string, servedAt = Date.now()): string {
  return keyring.seal(`${siteId} ${servedAt}`, CONTEXT)
}

export type FormTokenCheck = 'ok' | 'invalid' | 'too_soon' | 'expired'

export function checkFormToken(keyring: Keyring, token: string, siteId: string, now = Date.now()): FormTokenCheck {
  let opened: string
  try {
    opened = keyring.open(token, CONTEXT)
  } catch {
    return 'invalid'
  }
  const [site, served] = opened.split(' ')
  const servedAt = Number(served)
  if (site !== siteId || !Number.isSafeInteger(servedAt)) return 'invalid'
  if (now - servedAt < FORM_MIN_AGE_MS) return 'too_soon'
  if (now - servedAt > FORM_MAX_AGE_MS) return 'expired'
  return 'ok'
}
