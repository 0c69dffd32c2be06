import type { Locale } from '../locales.ts'
import type { Hosting } from './hosting.ts'

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
  /**
   * Kept by the service, not the owner: false while the site's account has no ai_sales_assistant
   * add-on on a plan that offers it (src/domain/accounts/add-ons.ts). The assistant then stays
   * silent and no widget is embedded, whatever `assistant.enabled` says.
   */
  assistant_included?: boolean
  /** The site's logo, an image of the account's media library (DESIGN.md 14). */
  logo_media_id?: string
  /** The site's description, AI crawler choices and organization (src/domain/sites/hosting.ts). */
  hosting?: Hosting
}

/** The media id of the site's logo, when it has one. */
export function siteLogoId(settings: SiteSettings): string | undefined {
  return typeof settings.logo_media_id === 'string' && settings.logo_media_id ? settings.logo_media_id : undefined
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

/** The assistant settings with every default applied; booking needs a url to be offered at all. Off while the account's add-on is. */
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
  return {
    enabled: assistant.enabled === true && settings.assistant_included !== false,
    persona: assistant.persona || undefined,
    capabilities,
  }
}

export function consentTextFor(settings: SiteSettings, locale: Locale): ConsentText {
  return settings.assistant?.lead_consent?.[locale] ?? DEFAULT_CONSENT[locale]
}

/** The assistant as the REST API shows and takes it: one flat object over the site's settings. */
export interface AssistantView {
  enabled: boolean
  persona: string | null
  booking_url: string | null
  lead: boolean
  handoff: boolean
}

/** `enabled` is the owner's choice; whether the assistant answers also depends on the account's add-on. */
export function assistantView(settings: SiteSettings): AssistantView {
  const resolved = resolveAssistant(settings)
  return {
    enabled: settings.assistant?.enabled === true,
    persona: resolved.persona ?? null,
    booking_url: resolved.capabilities.booking_url ?? null,
    lead: resolved.capabilities.lead,
    handoff: resolved.capabilities.handoff,
  }
}

/** Settings with the given assistant fields changed; everything else (consent wording) is kept. A booking url switches booking on. */
export function withAssistant(settings: SiteSettings, patch: Partial<AssistantView>): SiteSettings {
  const current = assistantView(settings)
  const next = { ...current, ...patch }
  const capabilities: Partial<AssistantCapabilities> = { booking: next.booking_url !== null, lead: next.lead, handoff: next.handoff }
  if (next.booking_url !== null) capabilities.booking_url = next.booking_url
  const assistant: NonNullable<SiteSettings['assistant']> = { ...settings.assistant, enabled: next.enabled, capabilities }
  if (next.persona === null) delete assistant.persona
  else assistant.persona = next.persona
  return { ...settings, assistant }
}
