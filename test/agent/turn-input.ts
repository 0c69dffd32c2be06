import type { TurnInput } from '../../src/agent/responder/types.ts'
import type { Locale } from '../../src/domain/locales.ts'

/** A visitor's message to the built-in responder on a site that offers everything: booking, leads, a person. */
export function turnInput(locale: Locale, message: string, extra: Pick<TurnInput, 'siteId'> = {}): TurnInput {
  return {
    locale,
    message,
    pagePath: undefined,
    capabilities: { booking: true, booking_url: 'https://x.test/demo', lead: true, handoff: true },
    handoff: 'none',
    persona: undefined,
    siteName: 'Test',
    history: async () => [],
    ...extra,
  }
}
