import { choose, heading, type KnowledgeBase, type Passage } from '../knowledge.ts'
import { askPersonSuggestion, intents, phrases } from '../phrases.ts'
import type { AgentAction, AgentSuggestion } from '../schemas.ts'
import { has, haystack, typeset } from '../text.ts'
import { priceAnswer } from './price-answers.ts'
import { clip, SHORT_REPLY, type Responder, type TurnInput, type TurnPlan } from './types.ts'

/**
 * The default responder: no outside service. It answers the question asked in its first sentence:
 * from the price list for prices, plans and add-ons, else from the best passage of the knowledge
 * base (a hosted site's own pages first). When nothing answers it for sure it says so and offers
 * the next step the site allows. At most one action and one suggestion.
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

export interface Wants {
  booking: boolean
  buying: boolean
  offer: boolean
  price: boolean
}

export function planTurn(kb: KnowledgeBase, input: TurnInput): TurnPlan {
  const plan = draftTurn(kb, input)
  return { ...plan, reply: typeset(plan.reply, input.locale) }
}

function draftTurn(kb: KnowledgeBase, input: TurnInput): TurnPlan {
  const { locale, message, capabilities } = input
  if (input.handoff === 'active') return fixed(phrases.handoffActive[locale])

  const hay = haystack(message)
  if (has(hay, intents.handoff[locale])) {
    if (capabilities.handoff) {
      if (input.handoff === 'requested') return fixed(phrases.handoffPending[locale])
      return { ...fixed(phrases.handoffRequested[locale]), requestHandoff: true }
    }
    if (capabilities.lead) return { ...fixed(phrases.handoffUnavailable[locale]), actions: [{ type: 'capture_lead', phase: 'suggested' }] }
    return { ...fixed(phrases.handoffUnavailableContact[locale]), ...navigateTo(kb.page(locale, 'contact')?.url, input) }
  }

  const wants: Wants = {
    booking: has(hay, intents.booking[locale]),
    buying: has(hay, intents.buying[locale]),
    offer: has(hay, intents.offerRequest[locale]),
    price: has(hay, intents.price[locale]),
  }
  const hits = kb.search(locale, message, { limit: 3, siteId: input.siteId })
  const choice = choose(hits)
  const best = choice.best?.passage
  const alternative = choice.alternative?.passage

  // A hosted site's own pages speak for it first.
  if (best?.siteId !== undefined) return passageAnswer(best, input, wants, kb, alternative)

  const priced = priceAnswer(kb, input, hay, wants, best)
  if (priced) {
    const pricing = kb.page(locale, 'pricing')
    const step = nextStep(input, wants, pricing?.url, pricing?.url, priced.planLabel)
    return {
      reply: withClosing(priced.reply, step.closing),
      ...step.parts,
      ...suggest(pricing?.suggestion, input),
      sources: pricing ? [{ title: pricing.pageTitle, url: pricing.url }] : [],
      requestHandoff: false,
      // The price sentence is the grounding: it is made from the price list. The pricing page's
      // overview would bring every other amount along, which a rephrased answer must not quote.
      passages: [],
      fixed: false,
    }
  }
  if (best) return passageAnswer(best, input, wants, kb, alternative)

  if (has(hay, intents.thanks[locale])) return fixed(phrases.thanks[locale])
  if (has(hay, intents.greeting[locale])) return fixed(phrases.greeting[locale])
  if (wants.booking && capabilities.booking && capabilities.booking_url) {
    return { ...fixed(phrases.bookingInvite[locale]), actions: [{ type: 'open_booking', url: capabilities.booking_url }] }
  }
  // "Send me a quote for 20 sites": nothing to look up, the lead form is the answer.
  if ((wants.offer || wants.buying) && capabilities.lead)
    return { ...fixed(phrases.leadInvite[locale]), actions: [{ type: 'capture_lead', phase: 'suggested' }] }
  // Something in the question is ours (a word the knowledge base knows), but no passage answers it.
  if (hits.length > 0 || wants.price || wants.buying || has(hay, intents.aboutUs[locale])) return notSure(kb, input)
  return fixed(phrases.noAnswer[locale])
}

/**
 * The passage's text as the answer. When another passage was about as likely meant, one line asks
 * whether it was, and the suggestion asks about it in one click.
 */
function passageAnswer(passage: Passage, input: TurnInput, wants: Wants, kb: KnowledgeBase, alternative?: Passage): TurnPlan {
  const pricingUrl = kb.page(input.locale, 'pricing')?.url
  const step = nextStep(input, wants, passage.url, pricingUrl)
  const other = alternative && heading(alternative)
  const answer = clip(passage.text, SHORT_REPLY)
  return {
    reply: withClosing(other ? `${answer} ${phrases.orDidYouMean[input.locale](other)}` : answer, step.closing),
    ...step.parts,
    ...(other ? suggest({ label: other, prompt: other }, input) : suggest(passage.suggestion, input)),
    sources: [{ title: passage.pageTitle, url: passage.url }],
    requestHandoff: false,
    passages: [passage],
    fixed: false,
  }
}

/** "I can't answer that for sure" and the next step the site allows: a person, an email, or the contact page. */
function notSure(kb: KnowledgeBase, input: TurnInput): TurnPlan {
  const { locale, capabilities } = input
  const { handoff, lead } = capabilities
  const next = handoff && lead ? phrases.askPersonOrLead : handoff ? phrases.askPerson : lead ? phrases.askLead : phrases.askContactPage
  const plan = fixed(`${phrases.notSure[locale]} ${next[locale]}`)
  if (handoff) plan.suggestions = [askPersonSuggestion[locale]]
  if (lead) plan.actions = [{ type: 'capture_lead', phase: 'suggested' }]
  else if (!handoff) Object.assign(plan, navigateTo(kb.page(locale, 'contact')?.url, input))
  return plan
}

interface Step {
  parts: Pick<TurnPlan, 'actions'>
  closing: string
}

/**
 * The one action that fits what the visitor wants and what the site offers: booking for a demo;
 * for buying, the lead form when they ask to be contacted, else the pricing page where sign-up
 * starts (the lead form or booking when they are already on it); else the page the answer came
 * from, unless the visitor is on it.
 */
export function nextStep(
  input: TurnInput,
  wants: Wants,
  answerUrl: string | undefined,
  pricingUrl: string | undefined,
  planLabel?: string,
): Step {
  const { capabilities, locale } = input
  const lead: AgentAction = { type: 'capture_lead', phase: 'suggested' }
  const away = (url: string | undefined) => url !== undefined && url !== input.pagePath
  if (wants.booking && capabilities.booking && capabilities.booking_url) {
    return { parts: { actions: [{ type: 'open_booking', url: capabilities.booking_url }] }, closing: phrases.bookingInvite[locale] }
  }
  if (wants.buying || wants.offer) {
    if (wants.offer && capabilities.lead) return { parts: { actions: [lead] }, closing: phrases.leadInvite[locale] }
    if (wants.buying && away(pricingUrl))
      return { parts: { actions: [{ type: 'navigate', href: pricingUrl! }] }, closing: phrases.signUpInvite[locale](planLabel) }
    if (capabilities.lead) return { parts: { actions: [lead] }, closing: phrases.leadInvite[locale] }
    if (capabilities.booking && capabilities.booking_url)
      return { parts: { actions: [{ type: 'open_booking', url: capabilities.booking_url }] }, closing: phrases.bookingInvite[locale] }
  }
  if (wants.booking && capabilities.lead) return { parts: { actions: [lead] }, closing: phrases.leadInvite[locale] }
  return { parts: away(answerUrl) ? { actions: [{ type: 'navigate', href: answerUrl! }] } : {}, closing: '' }
}

const withClosing = (reply: string, closing: string) => (closing ? `${reply} ${closing}` : reply)

function suggest(suggestion: AgentSuggestion | undefined, input: TurnInput): Pick<TurnPlan, 'suggestions'> {
  if (!suggestion || suggestion.prompt.toLowerCase() === input.message.trim().toLowerCase()) return {}
  return { suggestions: [suggestion] }
}

function navigateTo(url: string | undefined, input: TurnInput): Pick<TurnPlan, 'actions'> {
  return url && url !== input.pagePath ? { actions: [{ type: 'navigate', href: url }] } : {}
}

/** Fixed wording: no sources, and no language model rephrases it. */
function fixed(reply: string): TurnPlan {
  return { reply, requestHandoff: false, passages: [], fixed: true }
}
