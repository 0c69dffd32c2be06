import type { Locale } from '../../domain/locales.ts'
import type { Plan, Pricing } from '../../domain/accounts/plans.ts'
import { formatCount, formatEuro, formatPercent, isConfident, type KnowledgeBase, type Passage } from '../knowledge.ts'
import { intents, joinList, priceWording as w } from '../phrases.ts'
import { has, type Hay, terms, words } from '../text.ts'
import { storageText } from '../limits-wording.ts'
import type { TurnInput } from './types.ts'
import { addOnWording, planName, planWording } from './catalog.ts'
import type { Wants } from './builtin.ts'

/**
 * Answers made from the price list itself, the first sentence answering the question: one plan's
 * monthly and yearly price, a comparison of the plans named, an add-on's price, or every plan's
 * price. Undefined when the question is not about prices or plans (the knowledge base answers).
 */
export interface PriceAnswer {
  reply: string
  /** The plan the visitor named, for the sign-up invitation. */
  planLabel: string | undefined
}

/** The sentences depend only on the price list, the locale and the plans: made once each. */
const sentences = new WeakMap<Pricing, Map<string, string>>()
function once(list: Pricing, key: string, make: () => string): string {
  let cache = sentences.get(list)
  if (!cache) sentences.set(list, (cache = new Map()))
  let sentence = cache.get(key)
  if (sentence === undefined) cache.set(key, (sentence = make()))
  return sentence
}

export function priceAnswer(
  kb: KnowledgeBase,
  input: TurnInput,
  hay: Hay,
  wants: Wants,
  best: Passage | undefined,
  /** The plans the message names (`plansMentioned`), read once by the caller. */
  plans: readonly Plan[],
): PriceAnswer | undefined {
  const { locale, message } = input
  const list = kb.pricing
  // A quote asked for a plan ("send me an offer for Pro") is a price question too.
  const asksMoney = wants.price || wants.buying || wants.offer
  // "When does an upgrade to Plus apply?", "if I downgrade from Plus to Lite": a question about
  // changing plans, which the knowledge base answers, not one about what the plans cost.
  // "Upgrade to Plus" reads as buying ("How do I upgrade to Max?" is answered with its price), but
  // asking when it applies, or about a downgrade or cancellation, is not a price question.
  const lower = message.toLowerCase()
  if (!wants.price && !wants.offer && CHANGE[locale].test(lower) && (!wants.buying || TIMING[locale].test(lower))) return undefined
  if (asksMoney && plans.length < 2) {
    const addOn = list.add_ons.find((a) => addOnWording[a.id] && has(hay, addOnWording[a.id]!.aliases[locale]))
    if (addOn) {
      const wording = addOnWording[addOn.id]!
      // An extra seat's price means little without the seats each plan already includes.
      const reply = once(
        list,
        `${locale}:addon:${addOn.id}`,
        () =>
          w.addOn[locale](wording.name[locale], formatEuro(addOn.monthly_price_cents, locale), wording.description[locale]) +
          (addOn.id === 'extra_seat' ? ` ${w.seatsIncluded[locale](seatsPerPlan(list, locale))}` : ''),
      )
      return { reply, planLabel: undefined }
    }
  }
  if (plans.length >= 2)
    return {
      reply: once(list, `${locale}:compare:${[...plans].sort().join(',')}`, () => comparison(list, plans, locale)),
      planLabel: undefined,
    }
  if (plans.length === 1) {
    const id = plans[0]!
    // "Is a table booking system included in Plus, or extra?": the plan's price would answer as if
    // we offered the thing. When the thing is named in words the knowledge base does not hold, the
    // answer says so and what the plan does include, without a price.
    if (ASKS_INCLUDED[locale].test(lower) && namesUnknown(kb, message, locale))
      return {
        reply: once(list, `${locale}:not-part-of:${id}`, () => w.notPartOf[locale](planName(id, locale), summary(list, id, locale))),
        planLabel: planName(id, locale),
      }
    // "How do I connect a domain on Lite?" is a domain question: the knowledge base answers it,
    // when it answers the question without the plan's name too ("What does Max include?" it does not).
    if (!asksMoney && best && best.topic !== 'pricing') {
      const rest = kb.search(locale, withoutPlanNames(message, locale), { limit: 1 })[0]
      if (rest && isConfident(rest) && rest.passage.topic !== 'pricing') return undefined
    }
    const reply = asksMoney
      ? once(list, `${locale}:price:${id}`, () => planPrice(list, id, locale))
      : once(list, `${locale}:includes:${id}`, () => planIncludes(list, id, locale))
    return { reply, planLabel: planName(id, locale) }
  }
  // No plan named: every plan's price, when the question is about prices or buying in general
  // ("What do your plans cost?"), not about something that has a price ("a discount if I pay yearly",
  // "which add-ons can I buy").
  const general = !best || best.topic === 'pricing'
  if ((wants.buying || wants.price) && general && onlyPriceWords(message, locale)) {
    return { reply: once(list, `${locale}:all`, () => allPlans(list, locale)), planLabel: undefined }
  }
  return undefined
}

const ASKS_INCLUDED: Record<Locale, RegExp> = {
  en: /\b(included|include|includes|come with|comes with|cost extra|extra cost|on top|part of)\b/,
  de: /\b(inklusive|inkl|enthalten|dabei|drin|kostet (das )?extra|extra kosten|aufpreis|zusätzlich)\b/,
  fr: /\b(inclus|incluse|compris|comprise|en supplément|en plus|supplément)\b/,
}

/** True when the question, without the plans' names, holds a word no passage of the knowledge base contains. */
function namesUnknown(kb: KnowledgeBase, message: string, locale: Locale): boolean {
  const rest = withoutPlanNames(message, locale)
  const hit = kb.search(locale, rest, { limit: 1 })[0]
  return hit ? hit.unknown > 0 : terms(rest, locale).length > 0
}

const CHANGE: Record<Locale, RegExp> = {
  en: /\b(upgrad\w*|downgrad\w*|switch\w*|cancel\w*|move (up|down|back)|go (up|down|from|back)|going from|drop (down )?to|back to)\b/,
  de: /\b(upgrad\w*|downgrad\w*|wechsel\w*|wechsl\w*|kündig\w*|runter\w*|hochstuf\w*|zurück (zu|auf|in)|wieder (zu|auf|in))\b/,
  fr: /\b(passe[rz]?|repasse[rz]?|passage|change[rz]?|résili\w*|descend\w*|redescend\w*|monte[rz]?|reviens|revenir)\b/,
}

/** "If I downgrade from Plus to Lite…": a question about changing plans, whatever the plans. */
export const asksPlanChange = (message: string, locale: Locale) => CHANGE[locale].test(message.toLowerCase())

const TIMING: Record<Locale, RegExp> = {
  en: /\b(when|effect|immediately|right away|at once|mid|prorat\w*|period|downgrad\w*|cancel\w*)\b/,
  de: /\b(wann|ab wann|sofort|mitten|anteilig|zeitraum|downgrad\w*|runter\w*|kündig\w*)\b/,
  fr: /\b(quand|effet|tout de suite|milieu|prorata|période|descend\w*|inférieure|résili\w*)\b/,
}

/** Words that ask about prices in general: the price intent's own, and the words for a plan. */
const planWords: Record<Locale, string> = {
  de: 'tarif tarife tarifs paket pakete abo abos ihre euer kleinste kleinsten größte größten bezahlte bezahlten einfachste',
  en: 'plan plans tier tiers package packages subscription subscriptions smallest biggest largest basic paid',
  fr: 'formule formules offre offres abonnement abonnements forfait forfaits petite petit payante payant',
}
/** Words a request to buy or for an offer may hold besides its intent: what is bought. */
const buyingWords: Record<Locale, string> = {
  de: 'website websites seite seiten domain domains platz plätze konto konten free lite plus pro max',
  en: 'site sites website websites domain domains seat seats account accounts free lite plus pro max',
  fr: 'site sites domaine domaines place places compte comptes free lite plus pro max',
}
const buyingStems = new Map<Locale, ReadonlySet<string>>()
/** True when a message only asks to buy or for an offer ("send me a quote for 20 sites"), about nothing else. */
export function onlyBuyingWords(message: string, locale: Locale): boolean {
  let known = buyingStems.get(locale)
  if (!known)
    buyingStems.set(
      locale,
      (known = new Set(
        terms(
          `${intents.price[locale].join(' ')} ${intents.buying[locale].join(' ')} ${intents.offerRequest[locale].join(' ')} ${planWords[locale]} ${buyingWords[locale]}`,
          locale,
        ),
      )),
    )
  return terms(message, locale).every((t) => known.has(t))
}

const priceStems = new Map<Locale, ReadonlySet<string>>()
function onlyPriceWords(message: string, locale: Locale): boolean {
  let known = priceStems.get(locale)
  if (!known) priceStems.set(locale, (known = new Set(terms(`${intents.price[locale].join(' ')} ${planWords[locale]}`, locale))))
  return terms(message, locale).every((t) => known.has(t))
}

/** The question without the plan's name and the words for "plan": what it asks about the plan. */
export function withoutPlanNames(message: string, locale: Locale): string {
  const drop = new Set(['free', 'lite', 'plus', 'pro', 'max', ...planWords[locale].split(' ')])
  return words(message)
    .filter((word) => !drop.has(word))
    .join(' ')
}

/** "Free 1, Lite 1, Plus 3, Pro 5 and Max unlimited": the seats each plan includes, from the price list. */
function seatsPerPlan(list: Pricing, locale: Locale): string {
  return joinList(
    list.plans
      .filter((p) => p.seats !== 0)
      .map((p) => `${planName(p.id, locale)} ${p.seats === null ? w.unlimited[locale] : formatCount(p.seats, locale)}`),
    locale,
  )
}

function planOf(list: Pricing, id: Plan) {
  return list.plans.find((p) => p.id === id)!
}

const storageWords: Record<Locale, (amount: string) => string> = {
  de: (amount) => `, dazu ${amount} Speicher für Fotos`,
  en: (amount) => `, with ${amount} of storage for photos`,
  fr: (amount) => `, avec ${amount} de stockage pour les photos`,
}

function summary(list: Pricing, id: Plan, locale: Locale): string {
  const plan = planOf(list, id)
  return (
    planWording[id].summary[locale].replace('{api}', formatCount(plan.api_requests_per_hour, locale)) +
    storageWords[locale](storageText(plan.storage_mb, locale))
  )
}

function planPrice(list: Pricing, id: Plan, locale: Locale): string {
  const plan = planOf(list, id)
  const name = planName(id, locale)
  const first =
    plan.monthly_price_cents === 0
      ? w.freePlan[locale](name)
      : w.plan[locale](
          name,
          formatEuro(plan.monthly_price_cents, locale),
          formatEuro(plan.yearly_price_cents, locale),
          formatPercent(list.yearly_discount_percent, locale),
        )
  return `${first} ${w.includes[locale](summary(list, id, locale))}`
}

function planIncludes(list: Pricing, id: Plan, locale: Locale): string {
  const plan = planOf(list, id)
  const name = planName(id, locale)
  if (plan.monthly_price_cents === 0) return w.freeIncludesFirst[locale](name, summary(list, id, locale))
  return w.includesFirst[locale](
    name,
    summary(list, id, locale),
    w.monthAndYear[locale](formatEuro(plan.monthly_price_cents, locale), formatEuro(plan.yearly_price_cents, locale)),
  )
}

/** "Per month, Plus costs €19 and Pro €49." then what each includes; plans in price order. */
function comparison(list: Pricing, ids: readonly Plan[], locale: Locale): string {
  const ordered = list.plans.filter((p) => ids.includes(p.id))
  const priceList = joinList(
    ordered.map((p, i) => w.compareItem[locale](planName(p.id, locale), formatEuro(p.monthly_price_cents, locale), i === 0)),
    locale,
  )
  const includes = ordered.map((p) => w.compareIncludes[locale](planName(p.id, locale), summary(list, p.id, locale)))
  return `${w.compare[locale](priceList)} ${includes.join('. ')}.`
}

function allPlans(list: Pricing, locale: Locale): string {
  const items = list.plans.map((p) => `${planName(p.id, locale)} ${formatEuro(p.monthly_price_cents, locale)}`)
  return w.allPlans[locale](joinList(items, locale), formatPercent(list.yearly_discount_percent, locale))
}
