import type { KnowledgeBase, Passage } from '../knowledge.ts'
import { intents, phrases } from '../phrases.ts'
import type { AgentAction, AgentSource } from '../schemas.ts'
import { mentions } from '../text.ts'
import { clip, MAX_REPLY, type Responder, type TurnInput, type TurnPlan } from './types.ts'

/** Passages scoring below this are noise (a stray common word), not an answer. */
const MIN_SCORE = 1.5

/**
 * The default responder: no outside service. It ranks the knowledge base with BM25, answers with
 * the best passages in the session's locale, cites them, and picks at most one action and one
 * suggestion from what the visitor asked and what the site offers.
 */
export function builtinResponder(kb: KnowledgeBase): Responder {
  return {
    name: 'builtin',
    immediate: true,
    async respond(input) {
      return planTurn(kb, input)
    },
  }
}

export function planTurn(kb: KnowledgeBase, input: TurnInput): TurnPlan {
  const { locale, message, capabilities } = input

  if (input.handoff === 'active') return { reply: phrases.handoffActive[locale], requestHandoff: false, passages: [], fixed: true }

  if (mentions(message, intents.handoff[locale])) {
    if (!capabilities.handoff) {
      const actions: AgentAction[] | undefined = capabilities.lead ? [{ type: 'capture_lead', phase: 'suggested' }] : undefined
      return { reply: phrases.handoffUnavailable[locale], ...(actions ? { actions } : {}), requestHandoff: false, passages: [], fixed: true }
    }
    if (input.handoff === 'requested') return { reply: phrases.handoffPending[locale], requestHandoff: false, passages: [], fixed: true }
    return { reply: phrases.handoffRequested[locale], requestHandoff: true, passages: [], fixed: true }
  }

  const hits = kb.search(locale, message, 4).filter((h) => h.score >= MIN_SCORE)
  const wantsBooking = mentions(message, intents.booking[locale])
  const wantsToBuy = mentions(message, intents.buying[locale])

  if (hits.length === 0) {
    const greeting = mentions(message, intents.greeting[locale])
    return { reply: greeting ? phrases.greeting[locale] : phrases.noAnswer[locale], requestHandoff: false, passages: [], fixed: false, ...nextStep(input, wantsBooking, wantsToBuy, undefined) }
  }

  // Answer from the best passage, then add the next ones on the same page while they fit.
  const best = hits[0]!.passage
  const used: Passage[] = [best]
  for (const { passage } of hits.slice(1)) {
    if (passage.url === best.url && used.length < 3) used.push(passage)
  }
  const step = nextStep(input, wantsBooking, wantsToBuy, best)
  const closing = step.actions?.[0]?.type === 'capture_lead' ? phrases.leadInvite[locale] : step.actions?.[0]?.type === 'open_booking' ? phrases.bookingInvite[locale] : ''
  // Written order reads best; passages that do not fit are left out whole rather than cut.
  let body = ''
  for (const passage of [...used].sort((a, b) => a.seq - b.seq)) {
    const candidate = body ? `${body}\n\n${passage.text}` : passage.text
    if (passage === best || candidate.length + closing.length + 2 <= MAX_REPLY) body = candidate
  }
  const reply = clip(closing ? `${clip(body, MAX_REPLY - closing.length - 2)}\n\n${closing}` : body)

  const sources: AgentSource[] = []
  for (const p of used) if (!sources.some((s) => s.url === p.url)) sources.push({ title: p.title.split(':')[0]!, url: p.url })

  return { reply, sources, requestHandoff: false, passages: used, fixed: false, ...step }
}

/** At most one action and one suggestion: booking beats a lead, a lead beats navigation. */
function nextStep(input: TurnInput, wantsBooking: boolean, wantsToBuy: boolean, best: Passage | undefined): Pick<TurnPlan, 'actions' | 'suggestions'> {
  const { capabilities } = input
  let action: AgentAction | undefined
  if (wantsBooking && capabilities.booking && capabilities.booking_url) action = { type: 'open_booking', url: capabilities.booking_url }
  else if ((wantsToBuy || (wantsBooking && !capabilities.booking)) && capabilities.lead) action = { type: 'capture_lead', phase: 'suggested' }
  else if (best && best.url !== input.pagePath) action = { type: 'navigate', href: best.url }
  const suggestion = best?.suggestion && best.suggestion.prompt.toLowerCase() !== input.message.trim().toLowerCase() ? best.suggestion : undefined
  return { ...(action ? { actions: [action] } : {}), ...(suggestion ? { suggestions: [suggestion] } : {}) }
}
