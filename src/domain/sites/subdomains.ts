import type { Config } from '../../config.ts'
import { errors } from '../../errors.ts'

/**
 * Platform subdomains (DESIGN.md 12): every site is served at `{slug}.{SITES_DOMAIN}` from its
 * creation, with no DNS of its own. The slug is one DNS label, unique over all sites.
 */

/** One DNS label: lower-case letters, digits and inner hyphens, at most 63 characters. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'
const SLUG = new RegExp(SLUG_PATTERN)

/**
 * Labels the service keeps for itself beside its sites, and names a phishing page would like to
 * wear (a sign-in, billing or mail look-alike on the service's own domain): no site is given them.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'abuse',
  'account',
  'accounts',
  'admin',
  'api',
  'app',
  'assets',
  'auth',
  'autoconfig',
  'autodiscover',
  'billing',
  'cdn',
  'checkout',
  'console',
  'cpanel',
  'dashboard',
  'dns',
  'docs',
  'email',
  'exchange',
  'ftp',
  'help',
  'hostmaster',
  'identity',
  'imap',
  'intranet',
  'invoice',
  'invoices',
  'login',
  'logon',
  'logout',
  'mail',
  'mcp',
  'mta-sts',
  'mx',
  'myaccount',
  'no-reply',
  'noreply',
  'ns',
  'ns1',
  'ns2',
  'oauth',
  'outlook',
  'owa',
  'password',
  'pay',
  'payment',
  'payments',
  'pop',
  'pop3',
  'portal',
  'postmaster',
  'recovery',
  'register',
  'reset',
  'secure',
  'security',
  'sftp',
  'sign-in',
  'sign-up',
  'signin',
  'signup',
  'smtp',
  'sso',
  'static',
  'status',
  'status-page',
  'statuspage',
  'support',
  'verification',
  'verify',
  'vpn',
  'webdisk',
  'webmail',
  'webmaster',
  'whm',
  'www',
])

/** How long a slug made from a name may be, leaving room for a "-N" suffix within the label. */
const BASE_LENGTH = 50

/** A slug from a site's name: accents dropped, anything else between words a hyphen; "site" when nothing is left. */
export function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, BASE_LENGTH)
    .replace(/^-+|-+$/g, '')
  if (base === '') return 'site'
  return RESERVED_SLUGS.has(base) ? `${base}-site` : base
}

/** The n-th candidate for a slug: the slug itself, then slug-2, slug-3, … */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base
  const suffix = `-${n}`
  return `${base.slice(0, 63 - suffix.length).replace(/-+$/, '')}${suffix}`
}

/** Checks a slug a person or client chose; a reserved one counts as taken. */
export function checkSlug(slug: string): string {
  if (!SLUG.test(slug))
    throw new errors.invalidSubdomain(
      `'${slug.length > 70 ? `${slug.slice(0, 70)}…` : slug}' is not a valid subdomain label: lower-case letters, digits and inner hyphens, at most 63 characters`,
    )
  if (RESERVED_SLUGS.has(slug)) throw subdomainTaken(slug)
  return slug
}

export function subdomainTaken(slug: string) {
  return new errors.subdomainTaken(`The subdomain '${slug}' is already taken; choose another`)
}

/** What a site's subdomain depends on in the configuration. */
export type SubdomainConfig = Pick<Config, 'SITES_DOMAIN' | 'BASE_URL'>

/** Hostnames no site may add as its own domain (nor any name below them): the service's and SITES_DOMAIN. */
export function serviceHostnames(config: Pick<Config, 'SITES_DOMAIN' | 'BASE_URL' | 'API_URL'>): string[] {
  return [new URL(config.BASE_URL).hostname, new URL(config.API_URL).hostname, config.SITES_DOMAIN]
}

/** The full host a slug is served on. */
export function subdomainHost(slug: string, sitesDomain: string): string {
  return `${slug}.${sitesDomain}`
}

/** The slug a hostname names under SITES_DOMAIN (one label directly below it), if it does. */
export function slugOfHostname(hostname: string, sitesDomain: string): string | undefined {
  const suffix = `.${sitesDomain}`
  if (!hostname.endsWith(suffix)) return undefined
  const label = hostname.slice(0, -suffix.length)
  return SLUG.test(label) ? label : undefined
}

/**
 * Accepts what a client sends for a site's subdomain: the label alone, or the full host under
 * SITES_DOMAIN as the site object shows it.
 */
export function slugFromInput(input: string, sitesDomain: string): string {
  const value = input.trim().toLowerCase().replace(/\.$/, '')
  return checkSlug(slugOfHostname(value, sitesDomain) ?? value)
}

/**
 * The origin pages on the subdomain are canonical at: https under SITES_DOMAIN; under localhost
 * (development) the scheme and port of BASE_URL, so the address opens in a local browser.
 */
export function subdomainOrigin(slug: string, config: SubdomainConfig): string {
  const host = subdomainHost(slug, config.SITES_DOMAIN)
  if (config.SITES_DOMAIN !== 'localhost') return `https://${host}`
  const base = new URL(config.BASE_URL)
  return `${base.protocol}//${host}${base.port ? `:${base.port}` : ''}`
}
