import type { Locale } from '../../domain/locales.ts'
import type { AddOnId, Plan, Pricing } from '../../domain/accounts/plans.ts'
import { planExtras, keptMonths } from '../entitlements.ts'
import { formatEuro } from '../knowledge.ts'
import { storageText, keptText } from '../limits-wording.ts'
import { joinList } from '../phrases.ts'
import { addOnWording, planName } from './catalog.ts'

/**
 * A recommendation from what a visitor says they need ("a small bakery, three of us edit, our own
 * domain"): the cheapest plan with add-ons that covers every stated need, from the price list's
 * entitlements, and one line saying why. Undefined when the message states no need it can read.
 */
export interface Needs {
  sites?: number
  domains?: number
  seats?: number
  assistant?: boolean
  api?: 'read' | 'write'
  webhooks?: boolean
  storageMb?: number
  statsMonths?: number
  reports?: 'monthly' | 'weekly'
  premiumSeo?: boolean
  max?: boolean
  /** Only a free plan will do ("we don't want to pay"). */
  free?: boolean
}

const NUM: Record<Locale, Record<string, number>> = {
  en: {
    one: 1,
    a: 1,
    an: 1,
    single: 1,
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    nine: 9,
    ten: 10,
    eleven: 11,
    twelve: 12,
    both: 2,
    second: 2,
    third: 3,
    fourth: 4,
  },
  de: {
    ein: 1,
    eine: 1,
    einen: 1,
    einer: 1,
    einem: 1,
    zwei: 2,
    drei: 3,
    vier: 4,
    fünf: 5,
    sechs: 6,
    sieben: 7,
    acht: 8,
    neun: 9,
    zehn: 10,
    elf: 11,
    zwölf: 12,
    beide: 2,
    zweite: 2,
    zweiten: 2,
    zweiter: 2,
    zweites: 2,
    dritte: 3,
    dritten: 3,
    dritter: 3,
    drittes: 3,
  },
  fr: {
    un: 1,
    une: 1,
    seul: 1,
    deux: 2,
    trois: 3,
    quatre: 4,
    cinq: 5,
    six: 6,
    sept: 7,
    huit: 8,
    neuf: 9,
    dix: 10,
    onze: 11,
    douze: 12,
    deuxième: 2,
    second: 2,
    seconde: 2,
    troisième: 3,
    quatrième: 4,
  },
}

const SITE_NOUN: Record<Locale, RegExp> = {
  en: /^(sites?|websites?|web ?sites?|pages?|portfolios?|locations?|restaurants?|cafes?|cafés?|salons?|shops?|stores?|clients?|client|customers?|brands?|practices?|branches?|businesses)$/,
  de: /^(seiten?|websites?|webseiten?|homepages?|standorte?n?|restaurants?|cafés?|cafes?|salons?|läden|laden|geschäfte?n?|filialen?|kunden|kundenseiten|praxen|marken|betriebe?n?)$/,
  fr: /^(sites?|restaurants?|cafés?|cafes?|salons?|boutiques?|magasins?|clients?|cabinets?|établissements?|adresses?|marques?|agences?)$/,
}
const PEOPLE_NOUN: Record<Locale, RegExp> = {
  en: /^(people|persons?|staff|employees?|members?|editors?|users?|therapists?|colleagues?|guys|logins?|accounts?|seats?|of|admins?|team|stylists?|hairdressers?|volunteers?|coaches|trainers?|partners?|technicians?|workers?|writers?|authors?|teachers?|staffers?)$/,
  de: /^(leute|leuten|personen|mitarbeiter(innen)?|mitarbeitende|angestellte|mitglieder|vorstandsmitglieder|therapeut(inn)?en|kolleg(inn)?en|nutzer|benutzer|zugänge|plätze|redakteure|von|admins?|friseur(inn)?e|friseurinnen|helfer(innen)?|trainer(innen)?|techniker|monteure|gesellen|partner(innen)?)$/,
  fr: /^(personnes?|salariés?|employés?|membres?|kinés?|collègues?|gars|utilisateurs?|accès|comptes?|places?|éditeurs?|rédacteurs?|coiffeu(r|se)s|bénévoles|associés?|associées|techniciens?|ouvriers?|coachs|formateurs?|formatrices?|praticiens?|praticiennes?)$/,
}
/** "we are four", "a team of 5", "zu viert", "nous sommes trois": how many people, said without a noun after the number. */
const WE_ARE: Record<Locale, RegExp> = {
  en: /\b(?:we are|we're|there are|team of|crew of|group of)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten)\b|\b(?:we|us) (both)\b|\b(both) of us\b/,
  de: /\b(?:wir sind|sind wir|team von|zu)\s+(\d+|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zweit|dritt|viert|fünft|sechst)\b|\b(?:wir|uns) (beide)\b/,
  fr: /\b(?:nous sommes|on est|équipe de|à)\s+(\d+|deux|trois|quatre|cinq|six|sept|huit|neuf|dix)\b(?!\s*(?:€|euros?|go|mo|sites?|ans|mois|h))|\b(?:tous|toutes) les (deux)\b/,
}
const ORDINAL_COUNT: Record<string, number> = { zweit: 2, dritt: 3, viert: 4, fünft: 5, sechst: 6 }
const ME: Record<Locale, RegExp> = { en: /^(me|i)$/, de: /^(ich|mich)$/, fr: /^(moi)$/ }
const JUST_ME: Record<Locale, RegExp> = {
  en: /\b(just me|only me|by myself|one-man|one man|one-person|one person|one-woman|sole trader|solo|alone|on my own)\b/,
  de: /\b(nur ich|ein-mann|ein-frau|einzelkämpfer\w*|einzelunternehmer\w*|allein|alleine|solo)\b/,
  fr: /\b(seule?|à mon compte|solo|auto-entrepreneur\w*|micro-entrepreneur\w*)\b/,
}
const OWN_DOMAIN: Record<Locale, RegExp> = {
  en: /\b(own|my|our|custom|their|its) (web )?(domain|address|url|web address)|\bown name as\b|\bwww\.|\.(com|de|fr|net|org)\b/,
  de: /\b(eigene[rnm]?|meine[rnm]?|unsere[rnm]?) (domain|adresse|internetadresse|webadresse)|\bwww\.|\.(com|de|fr|net|org)\b/,
  fr: /\b(propre|mon|notre|son|leur) (nom de )?(domaine|adresse)|\bwww\.|\.(com|de|fr|net|org)\b/,
}
/** "We have a .com already", "Domain haben wir schon", "on a déjà un nom de domaine": a domain to bring. */
const HAS_DOMAIN: Record<Locale, RegExp> = {
  en: /\b(we|i) (already )?(have|own|got) (a|an|our|my) (own )?(domain|web address)\b|\bdomain already\b/,
  de: /\bdomain (haben|hab|habe) (wir|ich)\b|\b(wir|ich) (haben|habe|hab) (schon |bereits )?(eine|unsere|meine) domain\b/,
  fr: /\b(on a|nous avons|j'ai) (déjà )?(un|notre|mon) (nom de )?domaine\b/,
}
const NO_DOMAIN: Record<Locale, RegExp> = {
  en: /\b(no|without|don't need an?|do not need an?) (own |custom )?domain/,
  de: /\b(keine|ohne) (eigene )?domain/,
  fr: /\b(pas (besoin )?de|sans) (propre )?(nom de )?domaine/,
}
const SECOND_DOMAIN: Record<Locale, RegExp> = {
  en: /\b(second|another|extra|additional|2nd) domain/,
  de: /\b(zweite|weitere|zusätzliche)n? domain/,
  fr: /\b(second|deuxième|autre) domaine/,
}
const ASSISTANT: Record<Locale, RegExp> = {
  en: /\b(chat ?bot|chat assistant|ai chat|assistant|chat that|chat which|the chat|chat thing|chat widget|chat function)\b/,
  de: /\b(chat ?bot|chat-?assistent\w*|ki-chat|assistent\w*|einen chat|ein chat|der chat|den chat|dem chat)\b/,
  fr: /\b(chat ?bot|assistant|chat ia|un chat|le chat)\b/,
}
/** "Me and an assistant edit it": a person who assists, not the AI assistant. */
const PERSON_ASSISTANT: Record<Locale, RegExp> = {
  en: /\b(me|i) and (an?|my) assistant\b|\bmy assistant (and|edits?|updates?|helps?)\b/,
  de: /\b(ich|mir) und (eine?|meine?) assistent\w*|\bmeine assistentin\b/,
  fr: /\b(moi|je) et (une?|mon|ma) assistant\w*|\bmon assistante?\b/,
}
const ANOTHER_SITE: Record<Locale, RegExp> = {
  en: /\b(a second|another|a separate|an extra|an additional) (one|site|website|page)\b/,
  de: /\b(eine? zweite[n]?|noch eine|eine weitere|eine eigene|eine separate) (seite|website|webseite|homepage)\b/,
  fr: /\b(un deuxième|un second|un autre) site\b|\bun site (séparé|à part)\b/,
}
const API_WRITE: Record<Locale, RegExp> = {
  en: /\b(write api|api writes?|write access|create pages through|write to)\b|\bapi\b.*\bwrite\b|\bwrite\b.*\bapi\b/,
  de: /\b(schreib\w*)\b.*\bapi\b|\bapi\b.*\bschreib\w*/,
  fr: /\bapi\b.*\bécriture\b|\bécriture\b.*\bapi\b/,
}
const API_READ: Record<Locale, RegExp> = { en: /\bapi\b/, de: /\bapi\b/, fr: /\bapi\b/ }
const WEBHOOKS = /\bwebhooks?\b/
const STORAGE = /(\d+(?:[.,]\d+)?)\s?(gb|go|mb|mo|gigabytes?|gigaoctets?)\b/
const STATS: Record<Locale, RegExp> = {
  en: /\b(stats|statistics|analytics|visitor numbers|visits)\b/,
  de: /\b(statistik\w*|besucherstatistik\w*|besucherzahlen)\b/,
  fr: /\b(stats|statistiques|visites)\b/,
}
const OVER_A_YEAR: Record<Locale, RegExp> = {
  en: /\b(over|more than|longer than) (a|one) year\b/,
  de: /\b(mehr als|über|länger als) (ein|einem) jahr\b/,
  fr: /\b(plus d'un|plus d’un|plus de un) an\b/,
}
const YEARS: Record<Locale, RegExp> = {
  en: /\b(\d+|two|three) years?\b/,
  de: /\b(\d+|zwei|drei) jahre?n?\b/,
  fr: /\b(\d+|deux|trois) ans\b/,
}
const WEEKLY: Record<Locale, RegExp> = { en: /\bweekly\b/, de: /\bwöchentlich\w*/, fr: /\bhebdomadaires?\b/ }
const DEEP_SEO: Record<Locale, RegExp> = {
  en: /\b(deep|detailed|premium|in-depth)\b.*\b(seo|audits?)\b/,
  de: /\b(tiefe|detaillierte|premium)\w*\b.*\b(seo|audits?)\b/,
  fr: /\b(approfondis?|détaillés?|premium)\b.*\b(seo|audits?)\b|\b(seo|audits?)\b.*\b(approfondis?|détaillés?|premium)\b/,
}
const MAX_ONLY: Record<Locale, RegExp> = {
  en: /\b(sla|priority support|unlimited)\b/,
  de: /\b(sla|bevorzugten support|unbegrenzt\w*)\b/,
  fr: /\b(sla|support prioritaire|illimités?)\b/,
}
const NO_MONEY: Record<Locale, RegExp> = {
  en: /\b(don't want to (pay|spend)|do not want to (pay|spend)|no money|for free|free of charge|as cheap as possible|without paying|subdomain is fine|nothing to pay|no budget|zero budget|on your subdomain)\b/,
  de: /\b(nichts (aus)?geben|nichts bezahlen|kostenlos|gratis|so günstig wie möglich|subdomain reicht|ohne zu zahlen|kein budget|null budget|eurer subdomain)\b/,
  fr: /\b(rien dépenser|ne (veut|veux|voulons) pas payer|gratuit\w*|le moins cher possible|sous-domaine suffit|sans payer|pas de budget|aucun budget|zéro budget|votre sous-domaine)\b/,
}
/** Words asking for a choice: "which plan", "what do I need", "cheapest option". */
const ASKS: Record<Locale, RegExp> = {
  en: /\b(which|what) (plan|tier|package|option|one|subscription)\b|\bwhat (would|do) you (suggest|recommend|advise)\b|\bwhich (should|would|do) (i|we)\b|\b(good|best|right) fit\b|\bis (that|it|this) enough\b|\bshould (i|we) (go|take|get|choose|pick)\b|\bwhat do i need\b|\bwhat should i (take|get|choose|pick)\b|\bbest (plan|option|for)\b|\bcheapest (option|plan|way)\b|\bwhat fits\b|\brecommend\b|\bright for\b|\bwhat('s| is) better\b|\bplan fits\b|\b(most sensible|sensible|ideal|best|right) (option|choice|plan)\b|\bor\b.*\bfor\b/,
  de: /\bwelche[rsnm]? (tarif|paket|abo|option|angebot)\b|\bwas (empfehlt|empfehlen|schlagt|schlagen) (ihr|sie)\b|\bwas (sollen|soll) wir nehmen\b|\breicht (das|da|uns|mir)\b|\bwas (nehme|nehmen) (ich|wir)\b|\bwas brauche?\b|\bwas braucht (man|ihr)\b|\bwas soll ich nehmen\b|\bwas passt\b|\bam günstigsten\b|\bbester? tarif\b|\bempfiehl\w*\b|\bwas ist besser\b|\boder\b.*\bfür\b|\btarif passt\b/,
  fr: /\bquel(le)? (formule|offre|option|abonnement|forfait)\b|\bque (me |nous )?(conseillez|recommandez|proposez)-vous\b|\bvous (me |nous )?conseillez quoi\b|\bça suffit\b|\bon prend quoi\b|\bde quoi (ai-je|j'ai|j’ai) besoin\b|\bje prends quoi\b|\ble moins cher\b|\bqu'est-ce qui convient\b|\brecommand\w*\b|\bc'est quoi le mieux\b|\bou\b.*\bpour\b/,
}
/** A sentence that states a need ("we want", "I need"). */
const WANTS: Record<Locale, RegExp> = {
  en: /\b(want|wants|need|needs|would like|'d like|looking for|require|requires|should|must have|gotta have)\b/,
  de: /\b(will|wollen|möchte|möchten|brauch|brauche|brauchen|braucht|bräuchte|bräuchten|benötige|benötigen|hätte gern|hätten gern|soll|sollen|suche|suchen)\b/,
  fr: /\b(veux|voulons|veut|voudrais|voudrions|besoin|aimerais|aimerions|souhaite|souhaitons|doit|doivent|cherche|cherchons|il (nous|me) faut|faudrait)\b/,
}

const tokens = (text: string) =>
  text
    .toLowerCase()
    .match(/[\p{L}\p{N}'’.-]+/gu)
    ?.map((t) => t.replace(/[.,]$/, '')) ?? []

function countBefore(words: string[], i: number, locale: Locale): number | undefined {
  for (let back = 1; back <= 3 && i - back >= 0; back++) {
    const w = words[i - back]!
    // "both of us edit the site", "wir wollen beide die Seite bearbeiten": a count before "the" is not of sites.
    if (DEFINITE.test(w)) return undefined
    // "3", and "3rd", "3e", "3." as in "a 3rd café": the third one is three in all.
    const digits = /^(\d+)(?:st|nd|rd|th|e|er|ème|eme|te|ten|\.)?$/.exec(w)
    if (digits) return Number(digits[1])
    const n = NUM[locale][w]
    if (n !== undefined && !(locale === 'en' && (w === 'a' || w === 'an') && back > 1)) return n
  }
  return undefined
}

const DEFINITE = /^(the|die|der|das|den|dem|des|le|la|les|l')$/

const THING = /\b(domains?|domaines?|sites?|websites?|webseiten?|seiten?|address|adresse|url|dashboard|tableau|api|shop|laden|boutique)\b/

/** "me, my chef and the manager" → 3; "my partner and I" → 2. */
function listWithMe(text: string, locale: Locale): number | undefined {
  for (const clause of text.toLowerCase().split(/[.;?!()]/)) {
    const words = tokens(clause)
    const at = words.findIndex((w) => ME[locale].test(w))
    if (at < 0) continue
    const pieces = clause.split(locale === 'en' ? /,| and | & / : locale === 'de' ? /,| und | & / : /,| et | & /)
    const meIn = pieces.findIndex((p) => tokens(p).some((w) => ME[locale].test(w)))
    if (pieces.length < 2 || meIn < 0) continue
    // The list runs from the piece naming "me" over its neighbours that name a person ("my chef", "the manager").
    let count = 1
    // "an assistant", "eine Kollegin", "une associée": a person named with an indefinite article too.
    const person =
      /^(my|the|our|mein\w*|die|der|unser\w*|mon|ma|le|la|notre|mes)\b|^(an?|ein\w*|une?) (assistant\w*|colleague|partner\w*|employee|helper|apprentice|kolleg\w*|mitarbeiter\w*|helfer\w*|azubi\w*|collègue|associé\w*|employé\w*|apprenti\w*)\b/
    // "our domain, me, the chef": a piece naming a thing the site needs is not a person.
    const isPerson = (piece: string) => person.test(piece.trim()) && !THING.test(piece.trim().split(/\s+/).slice(0, 3).join(' '))
    for (let k = meIn + 1; k < pieces.length && isPerson(pieces[k]!); k++) count++
    for (let k = meIn - 1; k >= 0 && isPerson(pieces[k]!); k--) count++
    if (count > 1) return count
  }
  return undefined
}

/** Words for working on the site, which make a count of people a count of seats. */
const EDITS =
  /\b(log ?ins?|edit\w*|manage|access|update|maintain|work on|zug\w*|bearbeit\w*|pflegen|verwalten|ändern|ran|einlogg\w*|anmeld\w*|accès|modifier|modifient|gérons|gèrent|gérer|mettre à jour|connecter)\b/

export function readNeeds(message: string, locale: Locale): Needs {
  const text = message.toLowerCase().replace(/’/g, "'")
  const words = tokens(text)
  const needs: Needs = {}
  words.forEach((w, i) => {
    if (SITE_NOUN[locale].test(w)) {
      const n = countBefore(words, i, locale)
      if (n !== undefined) needs.sites = Math.max(needs.sites ?? 1, n)
    }
    if (PEOPLE_NOUN[locale].test(w)) {
      const n = countBefore(words, i, locale)
      // "3 of us", "3 von uns": the count stands before "of"/"von".
      if (n !== undefined && n > 1 && (w !== 'of' || words[i + 1] === 'us') && (w !== 'von' || words[i + 1] === 'uns'))
        needs.seats = Math.max(needs.seats ?? 1, n)
    }
  })
  const listed = listWithMe(text, locale)
  if (listed && EDITS.test(text)) needs.seats = Math.max(needs.seats ?? 1, listed)
  const weAre = WE_ARE[locale].exec(text)
  if (weAre) {
    const said = weAre.slice(1).find((g) => g !== undefined)!
    const n = /^\d+$/.test(said) ? Number(said) : (NUM[locale][said] ?? ORDINAL_COUNT[said])
    // "We are 3" counts people only next to a need for access ("…and all want to edit").
    if (n !== undefined && n > 1 && n < 100 && EDITS.test(text)) needs.seats = Math.max(needs.seats ?? 1, n)
  }
  if (JUST_ME[locale].test(text) && needs.seats === undefined) needs.seats = 1
  if (OWN_DOMAIN[locale].test(text) || HAS_DOMAIN[locale].test(text)) needs.domains = Math.max(needs.sites ?? 1, 1)
  if (SECOND_DOMAIN[locale].test(text)) needs.domains = (needs.sites ?? 1) + 1
  if (NO_DOMAIN[locale].test(text)) delete needs.domains
  if (ASSISTANT[locale].test(text) && !PERSON_ASSISTANT[locale].test(text)) needs.assistant = true
  // "a main site and a second one", "eine zweite Seite", "un autre site": one site more.
  if (ANOTHER_SITE[locale].test(text)) needs.sites = Math.max(needs.sites ?? 1, 2)
  if (WEBHOOKS.test(text)) needs.webhooks = true
  if (API_WRITE[locale].test(text)) needs.api = 'write'
  else if (API_READ[locale].test(text)) needs.api = 'read'
  const storage = STORAGE.exec(text)
  if (storage) needs.storageMb = Number(storage[1]!.replace(',', '.')) * (/^(gb|go|giga)/.test(storage[2]!) ? 1000 : 1)
  if (STATS[locale].test(text)) {
    if (OVER_A_YEAR[locale].test(text)) needs.statsMonths = 13
    const years = YEARS[locale].exec(text)
    if (years) needs.statsMonths = 12 * (Number(years[1]) || NUM[locale][years[1]!] || 2)
  }
  if (WEEKLY[locale].test(text) && /\b(seo|report\w*|bericht\w*|rapports?)\b/.test(text)) needs.reports = 'weekly'
  if (DEEP_SEO[locale].test(text)) needs.premiumSeo = true
  if (MAX_ONLY[locale].test(text)) needs.max = true
  if (NO_MONEY[locale].test(text) && !needs.domains) needs.free = true
  return needs
}

const needCount = (n: Needs) => Object.keys(n).length

/** A need stated as a quantity ("3 sites", "15 GB", "four of us") or as a budget. */
const counted = (n: Needs) =>
  (n.sites ?? 1) > 1 ||
  (n.seats ?? 1) > 1 ||
  n.storageMb !== undefined ||
  n.statsMonths !== undefined ||
  n.free === true ||
  (n.domains ?? 1) > 1

/**
 * True when the message asks which plan fits, or states needs the way a visitor describes a
 * project. One plain feature ("which plan has the AI chat?") is the knowledge base's to answer.
 */
/** A cheap first look: a message that neither asks for a choice nor states a want needs no reading of needs. */
export function mayStateNeeds(message: string, locale: Locale): boolean {
  const text = message.toLowerCase().replace(/’/g, "'")
  return ASKS[locale].test(text) || WANTS[locale].test(text) || ENOUGH[locale].test(text)
}

/** "Is Lite enough?", "reicht Lite?", "Lite ça suffit ?": a named plan put to the test of the needs stated. */
const ENOUGH: Record<Locale, RegExp> = {
  en: /\b(enough|sufficient|suffice|do the job|cover it|covers it)\b/,
  de: /\b(reicht|reichen|genügt|ausreichend|langt)\b/,
  fr: /\b(suffit|suffisant|suffisante|suffira|assez)\b/,
}
export const asksEnough = (message: string, locale: Locale) => ENOUGH[locale].test(message.toLowerCase())

export function asksRecommendation(message: string, locale: Locale, needs: Needs): boolean {
  const text = message.toLowerCase().replace(/’/g, "'")
  const count = needCount(needs)
  // One plain feature ("which plan has the AI chat?") is the knowledge base's to answer; an own
  // domain asked with "which plan" is the one need that already picks a plan.
  if (count === 0 || (count === 1 && !counted(needs) && !(needs.domains !== undefined && ASKS[locale].test(text)))) return false
  if (ASKS[locale].test(text) || (count >= 2 && ENOUGH[locale].test(text))) return true
  // "We've got 3 restaurants and want a site for each", "I need about 60 GB for my archive".
  return WANTS[locale].test(text) && (counted(needs) || needs.sites !== undefined || needs.seats !== undefined || count >= 2)
}

export interface Recommendation {
  plan: Plan
  addOns: Array<{ id: AddOnId; quantity: number }>
  totalCents: number
}

const rank = (list: Pricing, id: Plan) => list.plans.findIndex((p) => p.id === id)

/** The cheapest plan and add-ons covering the needs, among the plans named (all when none). */
export function recommend(list: Pricing, needs: Needs, among: readonly Plan[] = []): Recommendation | undefined {
  const extras = planExtras(list)
  let best: Recommendation | undefined
  for (const plan of list.plans) {
    if (among.length > 0 && !among.includes(plan.id)) continue
    if (needs.free && plan.monthly_price_cents > 0) continue
    const addOns: Recommendation['addOns'] = []
    let total = plan.monthly_price_cents
    const extra = (id: AddOnId, quantity: number) => {
      const addOn = list.add_ons.find((a) => a.id === id)
      if (!addOn || rank(list, plan.id) < rank(list, addOn.available_from)) return false
      addOns.push({ id, quantity })
      total += addOn.monthly_price_cents * quantity
      return true
    }
    const fits = (allowance: number | null, wanted: number | undefined) => wanted === undefined || allowance === null || allowance >= wanted
    if (!fits(plan.sites, needs.sites)) continue
    if (
      needs.domains !== undefined &&
      plan.own_domains !== null &&
      plan.own_domains < needs.domains &&
      !extra('extra_domain', needs.domains - plan.own_domains)
    )
      continue
    if (needs.seats !== undefined && plan.seats !== null && plan.seats < needs.seats && !extra('extra_seat', needs.seats - plan.seats))
      continue
    if (needs.assistant && !extra('ai_sales_assistant', 1)) continue
    if (needs.premiumSeo && !extra('premium_seo_reports', 1)) continue
    if (needs.api === 'read' && plan.api_access === 'none') continue
    if (needs.api === 'write' && plan.api_access !== 'read_write') continue
    if (needs.webhooks && !plan.webhooks) continue
    if (needs.reports === 'weekly' && plan.seo_reports !== 'weekly') continue
    if (needs.reports === 'monthly' && plan.seo_reports === 'none') continue
    if (needs.max && plan.sites !== null) continue
    const storage = extras[plan.id].storageMb
    if (needs.storageMb !== undefined && storage !== null && storage < needs.storageMb) continue
    if (needs.statsMonths !== undefined && keptMonths(extras[plan.id].statsKept) < needs.statsMonths) continue
    if (!best || total < best.totalCents) best = { plan: plan.id, addOns, totalCents: total }
  }
  return best
}

const words = {
  en: {
    lead: (offer: string, total: string) => `${offer} is the cheapest fit, for ${total} a month.`,
    free: (offer: string) => `${offer} covers it, at no cost.`,
    with: 'with',
    why: (items: string) => `It covers ${items}.`,
    sites: (n: string) => `${n} sites`,
    oneSite: 'one site',
    subdomain: 'a site on a platform subdomain',
    domains: (n: string) => `${n} own domains`,
    oneDomain: 'your own domain',
    seats: (n: string) => `${n} people (seats)`,
    unlimited: 'unlimited',
    assistant: 'the AI sales assistant',
    apiRead: 'read access to the API',
    apiWrite: 'the API with write access',
    webhooks: 'webhooks',
    storage: (s: string) => `${s} of storage for photos`,
    stats: (s: string) => `statistics kept ${s}`,
    weekly: 'weekly SEO reports',
    monthly: 'a monthly SEO report',
    premium: 'premium SEO reports',
    max: 'unlimited sites, an SLA and priority support',
    addOn: (q: number, name: string) => (q > 1 ? `${q} × ${name}` : name),
    none: 'No single plan covers all of that; a person from our team can put together an offer.',
    notEnough: (plan: string) => `${plan} doesn't cover all of that.`,
    counts: ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'],
  },
  de: {
    lead: (offer: string, total: string) => `${offer} ist die günstigste passende Wahl, für ${total} pro Monat.`,
    free: (offer: string) => `${offer} reicht dafür, kostenlos.`,
    with: 'mit',
    why: (items: string) => `Enthalten: ${items}.`,
    sites: (n: string) => `${n} Websites`,
    oneSite: 'eine Website',
    subdomain: 'eine Website auf einer Plattform-Subdomain',
    domains: (n: string) => `${n} eigene Domains`,
    oneDomain: 'Ihre eigene Domain',
    seats: (n: string) => `${n} Personen (Plätze)`,
    unlimited: 'unbegrenzt',
    assistant: 'der KI-Verkaufsassistent',
    apiRead: 'lesender API-Zugriff',
    apiWrite: 'die API mit Schreibzugriff',
    webhooks: 'Webhooks',
    storage: (s: string) => `${s} Speicher für Fotos`,
    stats: (s: string) => `Statistik ${s} gespeichert`,
    weekly: 'wöchentliche SEO-Berichte',
    monthly: 'ein monatlicher SEO-Bericht',
    premium: 'Premium-SEO-Berichte',
    max: 'unbegrenzt viele Websites, ein SLA und bevorzugter Support',
    addOn: (q: number, name: string) => (q > 1 ? `${q} × ${name}` : name),
    none: 'Alles zusammen deckt kein einzelner Tarif ab; ein Mensch aus unserem Team stellt Ihnen gern ein Angebot zusammen.',
    notEnough: (plan: string) => `${plan} deckt das nicht ganz ab.`,
    counts: ['keine', 'eine', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', 'zehn', 'elf', 'zwölf'],
  },
  fr: {
    lead: (offer: string, total: string) => `${offer} est l'option la moins chère qui convient, pour ${total} par mois.`,
    free: (offer: string) => `${offer} suffit, gratuitement.`,
    with: 'avec',
    why: (items: string) => `Elle couvre ${items}.`,
    sites: (n: string) => `${n} sites`,
    oneSite: 'un site',
    subdomain: 'un site sur un sous-domaine de la plateforme',
    domains: (n: string) => `${n} domaines propres`,
    oneDomain: 'votre propre domaine',
    seats: (n: string) => `${n} personnes (places)`,
    unlimited: 'illimité',
    assistant: "l'assistant commercial IA",
    apiRead: "l'accès en lecture à l'API",
    apiWrite: "l'API en écriture",
    webhooks: 'les webhooks',
    storage: (s: string) => `${s} de stockage pour les photos`,
    stats: (s: string) => `des statistiques gardées ${s}`,
    weekly: 'des rapports SEO hebdomadaires',
    monthly: 'un rapport SEO mensuel',
    premium: 'les rapports SEO premium',
    max: 'des sites illimités, un SLA et un support prioritaire',
    addOn: (q: number, name: string) => (q > 1 ? `${q} × ${name}` : name),
    none: 'Aucune formule ne couvre tout cela à elle seule ; une personne de notre équipe peut vous faire une offre.',
    notEnough: (plan: string) => `${plan} ne couvre pas tout cela.`,
    counts: ['aucune', 'une', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf', 'dix', 'onze', 'douze'],
  },
} satisfies Record<Locale, unknown>

/**
 * The recommendation in two sentences: the offer and its monthly total, then what of the needs it
 * covers; after "is Lite enough?" (`asked`), first whether the plan asked about does.
 */
export function recommendationText(list: Pricing, needs: Needs, r: Recommendation | undefined, locale: Locale, asked?: Plan): string {
  const w = words[locale]
  if (!r) return w.none
  if (asked && asked !== r.plan) return `${w.notEnough(planName(asked, locale))} ${recommendationText(list, needs, r, locale)}`
  const plan = list.plans.find((p) => p.id === r.plan)!
  const extras = planExtras(list)[r.plan]
  const addOnNames = r.addOns.map((a) => w.addOn(a.quantity, addOnWording[a.id]?.name[locale] ?? a.id))
  const offer = addOnNames.length ? `${planName(r.plan, locale)} ${w.with} ${joinList(addOnNames, locale)}` : planName(r.plan, locale)
  const lead = r.totalCents === 0 ? w.free(offer) : w.lead(offer, formatEuro(r.totalCents, locale))
  // Counts as words ("four people"), as the visitor said them; the price list's own figures stay figures.
  const count = (n: number | null) => (n === null ? w.unlimited : (w.counts[n] ?? String(n)))
  const items: string[] = []
  const seats = (plan.seats ?? 0) + (r.addOns.find((a) => a.id === 'extra_seat')?.quantity ?? 0)
  const domains = (plan.own_domains ?? 0) + (r.addOns.find((a) => a.id === 'extra_domain')?.quantity ?? 0)
  items.push(plan.sites === 1 ? (plan.own_domains === 0 ? w.subdomain : w.oneSite) : w.sites(count(plan.sites)))
  if (needs.domains !== undefined) items.push(domains === 1 ? w.oneDomain : w.domains(count(plan.own_domains === null ? null : domains)))
  if (needs.seats !== undefined && (needs.seats > 1 || plan.seats !== 1)) items.push(w.seats(count(plan.seats === null ? null : seats)))
  if (needs.assistant) items.push(w.assistant)
  if (needs.api === 'read') items.push(w.apiRead)
  if (needs.api === 'write') items.push(w.apiWrite)
  if (needs.webhooks) items.push(w.webhooks)
  if (needs.storageMb !== undefined) items.push(w.storage(storageText(extras.storageMb, locale)))
  if (needs.statsMonths !== undefined) items.push(w.stats(keptText(extras.statsKept, locale)))
  if (needs.reports === 'weekly') items.push(w.weekly)
  if (needs.premiumSeo) items.push(w.premium)
  if (needs.max) items.push(w.max)
  return `${lead} ${w.why(joinList(items, locale))}`
}
