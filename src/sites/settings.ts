import type { Locale } from './tables.ts'

export const LOCALES: readonly Locale[] = ['de', 'en', 'fr']

export function isLocale(value: unknown): value is Locale {
  return value === 'de' || value === 'en' || value === 'fr'
}

export interface ConsentText {
  text: string
  privacy: { label: string; url: string }
}

export interface AssistantCapabilities {
  booking: boolean
  booking_url?: string
  lead: boolean
  handoff: boolean
}

/** What a site says about its sales assistant; stored as the site's `settings` jsonb. */
export interface SiteSettings {
  assistant?: {
    enabled?: boolean
    persona?: string
    capabilities?: Partial<AssistantCapabilities>
    /** Per-locale consent text and privacy link shown before a lead is taken; defaults below fill gaps. */
    lead_consent?: Partial<Record<Locale, ConsentText>>
  }
}

/** The consent text a site uses unless it words its own; the privacy link is the site's own /privacy page. */
export const DEFAULT_CONSENT: Record<Locale, ConsentText> = {
  de: {
    text: 'Ich bin einverstanden, dass meine Angaben gespeichert und verwendet werden, um meine Anfrage zu beantworten. Ich kann die Einwilligung jederzeit widerrufen.',
    privacy: { label: 'Datenschutzerklärung', url: '/de/privacy' },
  },
  en: {
    text: 'I agree that my details are stored and used to answer my request. I can withdraw this consent at any time.',
    privacy: { label: 'Privacy policy', url: '/en/privacy' },
  },
  fr: {
    text: "J'accepte que mes coordonnées soient enregistrées et utilisées pour répondre à ma demande. Je peux retirer ce consentement à tout moment.",
    privacy: { label: 'Politique de confidentialité', url: '/fr/privacy' },
  },
}

export interface ResolvedAssistant {
  enabled: boolean
  persona: string | undefined
  capabilities: AssistantCapabilities
}

/** The assistant settings with every default applied; booking needs a url to be offered at all. */
export function resolveAssistant(settings: SiteSettings): ResolvedAssistant {
  const assistant = settings.assistant ?? {}
  const caps = assistant.capabilities ?? {}
  const bookingUrl = typeof caps.booking_url === 'string' && caps.booking_url.length > 0 ? caps.booking_url : undefined
  const capabilities: AssistantCapabilities = {
    booking: caps.booking === true && bookingUrl !== undefined,
    lead: caps.lead === true,
    handoff: caps.handoff === true,
  }
  if (capabilities.booking) capabilities.booking_url = bookingUrl
  return { enabled: assistant.enabled === true, persona: assistant.persona || undefined, capabilities }
}

export function consentTextFor(settings: SiteSettings, locale: Locale): ConsentText {
  return settings.assistant?.lead_consent?.[locale] ?? DEFAULT_CONSENT[locale]
}
