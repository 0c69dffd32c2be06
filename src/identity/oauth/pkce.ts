import { createHash } from 'node:crypto'
import { safeEqual } from '../../infra/crypto.ts'

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/
/** The S256 challenge is base64url of a SHA-256: exactly 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/** RFC 7636 section 4.6: BASE64URL(SHA256(code_verifier)) equals the stored challenge. Only S256 is offered. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false
  return safeEqual(createHash('sha256').update(verifier).digest('base64url'), challenge)
}
