import type { Keyring } from '../infra/crypto.ts'

const CONTEXT = 'sites.form-token'

/**
 * The token a hosted contact form carries: the site id sealed with the data key (AES-256-GCM, so
 * it cannot be forged or moved to another site). Pages are static, so it is made per build and
 * does not expire; the Sec-Fetch-Site (or Origin, or Referer) check is what stops cross-site
 * posts; the token ties the post to a form the service rendered for that very site.
 */
export function signFormToken(keyring: Keyring, siteId: string): string {
  return keyring.seal(siteId, CONTEXT)
}

export function formTokenValid(keyring: Keyring, token: string, siteId: string): boolean {
  try {
    return keyring.open(token, CONTEXT) === siteId
  } catch {
    return false
  }
}
