import type { Locale } from '../../domain/locales.ts'
import { PLATFORM_SITE_ID } from '../../domain/sites/sites.ts'
import { choose, heading, type Hit, type KnowledgeBase, likely, type Passage } from '../knowledge.ts'
import { askPersonSuggestion, intents, phrases } from '../phrases.ts'
import type { AgentAction, AgentSuggestion } from '../schemas.ts'
import { has, haystack, typeset } from '../text.ts'
import { asksForPerson, asksHow, asksHowItWorks, comparesWithOtherBuilder, favourIntent, namesBusiness, splitQuestions } from './intent.ts'
import { limitAnswer } from './limit-answers.ts'
import { asksPlanChange, onlyBuyingWords, priceAnswer, withoutPlanNames } from './price-answers.ts'
import { plansMentioned } from './plan-mentions.ts'
import { asksEnough, asksRecommendation, mayStateNeeds, readNeeds, recommend, recommendationText } from './recommend.ts'
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

/** How alike, letter by letter, a question must be to a stored one for a passage the term index also found to answer it. */
const NEAR_SIMILARITY = 0.6
/** As alike as that, a passage the term index ranked below another is meant all the same. */
const NEAR_SURE = 0.8

/**
 * Words the term index ranks poorly (an ending, a typo, a phrase) may still spell out a question the
 * knowledge base answers: a passage both readings point to is the likely answer. Only when every
 * word of the question is one the knowledge base knows ("an interface to Shopify" names something
 * it does not), and only the term index's best candidate unless the letters leave no doubt.
 */
function spelledOut(kb: KnowledgeBase, input: TurnInput, hits: readonly Hit[]): Passage | undefined {
  const [first] = hits
  if (!first) return undefined
  const near = kb.nearest(input.locale, input.message, { siteId: input.siteId })
  if (!near || near.similarity < NEAR_SIMILARITY || !near.explained) return undefined
  if (first.passage === near.passage) return near.passage
  return near.similarity >= NEAR_SURE && hits.some((h) => h.passage === near.passage) ? near.passage : undefined
}

const THIRD_PARTY: Record<Locale, RegExp> = {
  en: /\b(customers?|clients?|guests?|patients?|visitors?|members?|students?|pupils?|learners?|diners?|participants?)\b/,
  de: /\b(kunden|kundinnen|gäste|gast|patienten|patientinnen|besucher\w*|mitglieder|schüler\w*|schueler\w*|klient\w*|mandant\w*|teilnehmer\w*)\b/,
  fr: /\b(clients?|clientes?|invités?|patients?|patientes?|visiteurs?|membres?|élèves?|eleves?|étudiants?|participants?)\b/,
}

/** "What does it cost to add a person for my apprentice?" asks about a seat, not for a person to talk to. */
const ADDS_MEMBER: Record<Locale, RegExp> = {
  en: /\b(add|adding|invite|inviting|extra|another|one more|additional|second)\s+(a\s+)?(person|people|human|someone|somebody)\b/,
  de: /\b(weitere|zusätzliche|zusaetzliche|noch eine|zweite)\s+person\b|\bperson\w*\s+(hinzufüg\w*|hinzufueg\w*|dazunehm\w*|einlad\w*|ergänz\w*)/,
  fr: /\b(ajouter|rajouter|inviter|ajoute|rajoute)\s+(une\s+)?(personne|quelqu'un|quelqu’un)\b|\bpersonne (supplémentaire|de plus|en plus)\b/,
}

/**
 * "Can I show my menu and opening hours?": two things joined by "and", each the subject of its own
 * passage, both well matched. The second passage is added after the first.
 */
const AND_WORD: Record<Locale, RegExp> = { en: /\band\b/i, de: /\bund\b/i, fr: /\bet\b/i }
const SECOND_SHARE = 0.7
/** Each of two things asked together holds about half the question. */
const SECOND_COVERAGE = 0.5

function secondFeature(hits: readonly Hit[], best: Passage, message: string, locale: Locale): Passage | undefined {
  if (!AND_WORD[locale].test(message)) return undefined
  const top = hits[0]
  const other = hits.find((h) => h.passage !== best && h.passage.siteId === best.siteId && h.coverage >= SECOND_COVERAGE)
  return top && other && other.score >= SECOND_SHARE * top.score ? other.passage : undefined
}

/** "Une posture à me conseiller ?" asks for advice, not for an advisor. */
const ADVISE: Partial<Record<Locale, RegExp>> = { fr: /\b(me|m'|te|nous|vous|lui|leur) conseiller\b/i }

/** Booking words beside the demo's: what a site's customers would do with a booking system ("reserve a table"). */
const RESERVES: Record<Locale, RegExp> = {
  en: /\b(book|books|booking|reserve|reservations?|schedule|slots?|appointments?|calendar)\b/,
  de: /\b(buch\w*|reservier\w*|reservierung\w*|termin\w*|kalender)\b/,
  fr: /\b(réserv\w*|reserv\w*|rdv|rendez-vous|créneaux|créneau|creneau\w*|calendrier)\b/,
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
  const { locale, message } = input
  if (input.handoff === 'active') return fixed(phrases.handoffActive[locale])
  // "A restaurant, one site, me, the chef and the manager edit it. Cheapest?" is one question however
  // many "and"s it holds: a statement of needs is read whole.
  const parts = statesNeeds(message, locale) ? [message] : splitQuestions(message, locale)
  if (parts.length < 2) return answerOne(kb, input)
  return combine(
    input,
    parts.map((part) => answerOne(kb, { ...input, message: part }, message)),
  )
}

function statesNeeds(message: string, locale: Locale): boolean {
  return mayStateNeeds(message, locale) && asksRecommendation(message, locale, readNeeds(message, locale))
}

/**
 * Two or three questions in one message: each answered in turn, the answers kept short so the whole
 * stays readable. A request for a person wins; a part nothing answers is named as uncertain in one
 * line instead of a refusal of the whole message.
 */
function combine(input: TurnInput, plans: TurnPlan[]): TurnPlan {
  const handoff = plans.find((p) => p.requestHandoff)
  if (handoff) return handoff
  const answered = plans.filter((p) => !p.unanswered)
  if (answered.length === 0) return plans[0]!
  const each = Math.max(160, Math.floor((SHORT_REPLY * 1.5) / answered.length))
  const replies: string[] = []
  const said = new Set<string>()
  for (const p of answered) {
    const reply = clip(p.reply, each)
    // Two parts answered from the same passage ("is there SSL? and do I renew it?") say it once,
    // whether or not one of them adds that it may not cover everything.
    const gist = reply.replace(` ${phrases.mayNotCoverAll[input.locale]}`, '')
    if (said.has(gist)) continue
    said.add(gist)
    replies.push(reply)
  }
  if (answered.length < plans.length) replies.push(phrases.partUncertain[input.locale])
  const sources = answered.flatMap((p) => p.sources ?? []).filter((s, i, all) => all.findIndex((o) => o.url === s.url) === i)
  // One part asking for an offer or a demo decides the action over another part's page to read.
  const withActions = [...answered].sort((a, b) => actionRank(b) - actionRank(a)).find((p) => p.actions?.length)
  const withSuggestions = answered.find((p) => p.suggestions?.length)
  return {
    reply: replies.join(' '),
    ...(withActions ? { actions: withActions.actions } : {}),
    ...(withSuggestions ? { suggestions: withSuggestions.suggestions } : {}),
    ...(sources.length ? { sources } : {}),
    requestHandoff: false,
    passages: answered.flatMap((p) => p.passages),
    fixed: answered.every((p) => p.fixed),
  }
}

const ACTION_RANK: Record<string, number> = { open_booking: 3, capture_lead: 2, navigate: 1 }
const actionRank = (plan: TurnPlan) => ACTION_RANK[plan.actions?.[0]?.type ?? ''] ?? 0

/** One question; `whole` is the message it came from, whose words a short second part may lean on ("…and how long do you keep them?"). */
function answerOne(kb: KnowledgeBase, input: TurnInput, whole = input.message): TurnPlan {
  const { locale, message, capabilities } = input
  const hay = haystack(message)
  if (
    (has(hay, intents.handoff[locale]) &&
      !asksHow(message, locale) &&
      !namesBusiness(message, locale) &&
      !ADVISE[locale]?.test(message) &&
      !ADDS_MEMBER[locale].test(message.toLowerCase())) ||
    asksForPerson(message, locale)
  ) {
    if (capabilities.handoff) {
      if (input.handoff === 'requested') return fixed(phrases.handoffPending[locale])
      return { ...fixed(phrases.handoffRequested[locale]), requestHandoff: true }
    }
    if (capabilities.lead) return { ...fixed(phrases.handoffUnavailable[locale]), actions: [{ type: 'capture_lead', phase: 'suggested' }] }
    return { ...fixed(phrases.handoffUnavailableContact[locale]), ...navigateTo(kb.page(locale, 'contact')?.url, input) }
  }

  // "How are you different from Wix?": what we offer, without a verdict on others.
  const overview = comparesWithOtherBuilder(message, locale) ? kb.page(locale, 'features') : undefined
  if (overview) {
    const plan = passageAnswer(overview, input, { booking: false, buying: false, offer: false, price: false }, kb)
    return { ...plan, reply: `${phrases.otherProviders[locale]} ${plan.reply}` }
  }

  // "Can my customers book appointments?" asks about a booking system for the site, which we do not
  // offer, not for a demo with us: neither the booking action nor the demo's passages answer it.
  // Who is booking may be said in another part of the message ("can students book? like pick a slot").
  const lower = message.toLowerCase()
  const wholeLower = whole.toLowerCase()
  const asksBooking = has(hay, intents.booking[locale])
  const customersBook =
    (asksBooking || RESERVES[locale].test(lower)) && THIRD_PARTY[locale].test(wholeLower) && !/\bd[ée]mo/.test(wholeLower)
  const wants: Wants = {
    booking: asksBooking && !customersBook,
    buying: has(hay, intents.buying[locale]),
    offer: has(hay, intents.offerRequest[locale]),
    price: has(hay, intents.price[locale]) && !asksHowItWorks(message, locale),
  }
  const plans = plansMentioned(message, locale)
  // "From Plus to Lite, when does that happen?" asks about changing plans: the plans' names would
  // pull in every passage that lists the plans (sites, storage) rather than the rule for changing.
  const query = plans.length > 0 && asksPlanChange(message, locale) ? withoutPlanNames(message, locale) : message
  const hits = favourIntent(kb.search(locale, query, { limit: 3, siteId: input.siteId }), message, locale)
  if (customersBook && hits[0]?.passage.topic === 'demo') return notSure(kb, input)
  const choice = choose(hits)
  const best = choice.best?.passage
  const alternative = choice.alternative?.passage

  // A hosted site's own pages speak for it first.
  if (best?.siteId !== undefined) return passageAnswer(best, input, wants, kb, alternative)

  // "A bakery, three of us edit it, our own domain: which plan?" The cheapest plan and add-ons
  // covering every stated need, from the price list.
  // "…own domain and a chat that answers customers, is Lite enough?" puts one plan to the test.
  const testsPlan = plans.length === 1 && asksEnough(message, locale)
  if ((plans.length !== 1 || testsPlan) && !wants.booking && mayStateNeeds(message, locale)) {
    const needs = readNeeds(message, locale)
    if (asksRecommendation(message, locale, needs)) {
      const pricing = kb.page(locale, 'pricing')
      const step = nextStep(input, { ...wants, buying: true }, pricing?.url, pricing?.url)
      const among = testsPlan ? [] : plans
      return {
        reply: recommendationText(kb.pricing, needs, recommend(kb.pricing, needs, among), locale, testsPlan ? plans[0] : undefined),
        ...step.parts,
        sources: pricing ? [{ title: pricing.pageTitle, url: pricing.url }] : [],
        requestHandoff: false,
        passages: [],
        fixed: false,
      }
    }
  }
  // Storage and how long statistics are kept, for the plan named, from the price list.
  const limit = limitAnswer(kb, message, locale, plans, whole)
  if (limit) {
    const source = limit.passage
    return {
      reply: limit.reply,
      ...upgradeLink(input),
      ...(source ? { sources: [{ title: source.pageTitle, url: source.url }] } : {}),
      requestHandoff: false,
      passages: source ? [source] : [],
      fixed: false,
    }
  }

  const priced = priceAnswer(kb, input, hay, wants, best, plans)
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
  if (best) {
    const also = alternative ? undefined : secondFeature(hits, best, message, locale)
    const plan = passageAnswer(best, input, wants, kb, alternative)
    if (!also) return plan
    return { ...plan, reply: `${plan.reply} ${clip(also.text, SHORT_REPLY)}`, passages: [...plan.passages, also] }
  }
  // New wording for something the knowledge base answers: its likely passage (by its terms, else by
  // the letters of its words), saying it may not cover everything, rather than a refusal.
  // A booking system for the site's customers is not ours: a likely passage would be a guess.
  const probable = customersBook ? undefined : (likely(hits)?.passage ?? spelledOut(kb, input, hits))
  if (probable) {
    const plan = passageAnswer(probable, input, wants, kb)
    return { ...plan, reply: `${clip(probable.text, SHORT_REPLY)} ${phrases.mayNotCoverAll[locale]}` }
  }

  if (has(hay, intents.thanks[locale])) return { ...fixed(phrases.thanks[locale]), unanswered: true }
  if (has(hay, intents.greeting[locale])) return fixed(phrases.greeting[locale])
  if (wants.booking && capabilities.booking && capabilities.booking_url) {
    return { ...fixed(phrases.bookingInvite[locale]), actions: [{ type: 'open_booking', url: capabilities.booking_url }] }
  }
  // "Send me a quote for 20 sites": nothing to look up, the lead form is the answer.
  if ((wants.offer || wants.buying) && capabilities.lead && onlyBuyingWords(message, locale))
    return { ...fixed(phrases.leadInvite[locale]), actions: [{ type: 'capture_lead', phase: 'suggested' }] }
  // Something in the question is ours (a word the knowledge base knows), but no passage answers it.
  if (hits.length > 0 || wants.price || wants.buying || has(hay, intents.aboutUs[locale])) return notSure(kb, input)
  return { ...fixed(phrases.noAnswer[locale]), unanswered: true }
}

/**
 * The passage's text as the answer. When another passage was about as likely meant, one line asks
 * whether it was, and the suggestion asks about it in one click.
 */
function passageAnswer(passage: Passage, input: TurnInput, wants: Wants, kb: KnowledgeBase, alternative?: Passage): TurnPlan {
  const pricingUrl = kb.page(input.locale, 'pricing')?.url
  // An answer about the demo leads to booking one, however the visitor asked ("can someone show me?").
  const step = nextStep(input, passage.topic === 'demo' ? { ...wants, booking: true } : wants, passage.url, pricingUrl)
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
  const plan: TurnPlan = { ...fixed(`${phrases.notSure[locale]} ${next[locale]}`), unanswered: true }
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

/**
 * Where an owner changes the plan (DESIGN.md 16): the dashboard's billing page, which asks a
 * visitor who is not signed in to sign in first and comes back. Offered beside an answer about a
 * plan's limits by the service's own assistant only: a hosted site's visitors buy nothing from us.
 */
const UPGRADE_PATH = '/app/billing'

function upgradeLink(input: TurnInput): Pick<TurnPlan, 'actions'> {
  return input.siteId === undefined || input.siteId === PLATFORM_SITE_ID ? navigateTo(UPGRADE_PATH, input) : {}
}

function navigateTo(url: string | undefined, input: TurnInput): Pick<TurnPlan, 'actions'> {
  return url && url !== input.pagePath ? { actions: [{ type: 'navigate', href: url }] } : {}
}

/** Fixed wording: no sources, and no language model rephrases it. */
function fixed(reply: string): TurnPlan {
  return { reply, requestHandoff: false, passages: [], fixed: true }
}
