import canonicalize from 'canonicalize'
import { sha256Hex } from '../../infra/crypto.ts'
import type { Locale } from '../locales.ts'
import { consentTextFor, type SiteSettings } from '../sites/settings.ts'

/** The version of the consent wording every lead must repeat (INTERFACE.md section 9). */
export const CONSENT_VERSION = '2026-07-24.1'

export interface LeadConsent {
  version: typeof CONSENT_VERSION
  locale: Locale
  text: string
  privacy: { label: string; url: string }
  digest: string
}

/** RFC 8785 canonical JSON: the one serialisation both sides can reproduce. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value)
  if (text === undefined) throw new Error('value cannot be canonicalised')
  return text
}

/** SHA-256 hex of the canonical JSON of {version, locale, text, privacy}: what a lead must hand back. */
export function consentDigest(consent: Omit<LeadConsent, 'digest'>): string {
  const { version, locale, text, privacy } = consent
  return sha256Hex(canonicalJson({ version, locale, text, privacy: { label: privacy.label, url: privacy.url } }))
}

/** The consent a site hands out in a locale, with its digest. */
export function leadConsentFor(settings: SiteSettings, locale: Locale): LeadConsent {
  const { text, privacy } = consentTextFor(settings, locale)
  const body = { version: CONSENT_VERSION, locale, text, privacy: { label: privacy.label, url: privacy.url } } as const
  return { ...body, digest: consentDigest(body) }
}
