import type { ResolvedAssistant } from '../domain/sites/settings.ts'
import type { Locale } from '../domain/locales.ts'
import { openerSuggestions, phrases } from './phrases.ts'
import type { AgentSuggestion } from './schemas.ts'
import { typeset } from './text.ts'

/** The greeting a session opens with: the persona's name when the site gives one, and two starting points. */
export function openerFor(
  assistant: ResolvedAssistant,
  siteName: string,
  locale: Locale,
): { text: string; suggestions: AgentSuggestion[] } {
  const text = assistant.persona ? phrases.openerNamed[locale](assistant.persona, siteName) : phrases.opener[locale](siteName)
  const s = openerSuggestions[locale]
  const suggestions = [s.pricing, assistant.capabilities.booking ? s.demo : s.features]
  return {
    text: typeset(text, locale),
    suggestions: suggestions.map((x) => ({ label: typeset(x.label, locale), prompt: typeset(x.prompt, locale) })),
  }
}
