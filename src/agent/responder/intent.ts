import type { Locale } from '../../domain/locales.ts'

/**
 * What a message asks, read before retrieval: the parts of a compound message, a request for a
 * person (in any register), and a question about how something works, which is never a request.
 */

/** Words that open a question; a clause starting with one after "and" is a second question. */
const OPENERS: Record<Locale, string> = {
  en: "can|could|do|does|did|is|are|how|what|whats|what's|which|when|where|will|would|may|should|shall|who|why|am|any|has|have",
  de: 'kann|können|kannst|gibt|gibts|ist|sind|wie|was|welche|welcher|welches|wann|wo|bekomme|bekommen|muss|müssen|hat|habe|haben|sehen|sehe|nutzt|seid|werden|wird|darf|dürfen|brauche|brauchen|bleibt|geht|gehen',
  fr: "je peux|est-ce|est ce|combien|comment|quel|quelle|quels|quelles|c'est|on peut|vous|la|le|les|mes|ça|il y a|à quelle|qu'est-ce|y a-t-il|puis-je|peut-on|faut-il|dois-je|j'ai|je dois|je perds|je garde|je paie|je récupère|mon|ma",
}
const AND: Record<Locale, string> = { en: 'and|also|plus', de: 'und|außerdem|sowie', fr: 'et|aussi' }

/** The patterns built of the "and" words, made once per locale. */
const byLocale = (pattern: (locale: Locale) => string): Record<Locale, RegExp> => ({
  en: new RegExp(pattern('en'), 'iu'),
  de: new RegExp(pattern('de'), 'iu'),
  fr: new RegExp(pattern('fr'), 'iu'),
})
/** "and" joins two questions after a space; "also" only after a comma ("vous faites aussi les logos ?" is one). */
const SPLITTER = byLocale((locale) => {
  const [and, ...adverbs] = AND[locale].split('|')
  return `(?:(?:,\\s*|\\s+)${and}|,\\s*(?:${adverbs.join('|')}))\\s+(?=(?:${OPENERS[locale]})\\b)`
})
/** "X, and Y", a leading "and", " and " between two parts. */
const COMMA_AND = byLocale((locale) => `,\\s*(?:${AND[locale]})\\s+`)
const LEADING_AND = byLocale((locale) => `^(?:${AND[locale]})\\s+`)
const SPACED_AND = byLocale((locale) => `\\s(?:${AND[locale]})\\s`)
const LEADING_SPACED_AND = byLocale((locale) => `^\\s(?:${AND[locale]})\\s`)

/**
 * Words that ask, anywhere in a clause: "…, and a file can be how big?", "…, et un fichier peut
 * faire quelle taille ?". After a comma and "and", a clause holding one is a question of its own.
 */
const ASKING: Record<Locale, RegExp> = {
  en: /\b(what|which|how|when|where|who|why|whats|is (it|that|this|there)|are there|included)\b/i,
  de: /\b(was|welche\w*|wie|wann|wo|wer|warum|gibt es|gibts|ist das|dabei|inklusive)\b/i,
  fr: /\b(quel\w*|comment|combien|quand|où|qui|pourquoi|est-ce|compris|inclus)\b/i,
}

/**
 * The sentence cut where `separator` first matches, when both sides are clauses of three words or
 * more and `accept` takes them; else the sentence whole.
 */
function splitOnce(sentence: string, separator: RegExp, accept: (left: string, right: string) => boolean): string[] {
  const at = separator.exec(sentence)
  if (!at) return [sentence]
  const left = sentence.slice(0, at.index)
  const right = sentence.slice(at.index + at[0].length)
  if (left.split(/\s+/).length < 3 || right.split(/\s+/).length < 3 || !accept(left, right)) return [sentence]
  return [left, right]
}

/** "X, and Y?" where Y asks something of its own: the two parts. */
function splitAtCommaAnd(sentence: string, locale: Locale): string[] {
  return splitOnce(sentence, COMMA_AND[locale], (_, right) => ASKING[locale].test(right))
}

/**
 * A second question after a comma, opened as questions are: "How does it work to bring my domain
 * over, do I need to do something at my old provider first?".
 */
const COMMA_QUESTION: Record<Locale, RegExp> = {
  en: /,\s+(?=(?:do|does|can|could|will|would|should|must|is|are|have|has) (?:i|we|you|it|they|there|my|our|the)\b)/i,
  de: /,\s+(?=(?:muss|müssen|kann|können|brauche|brauchen|soll|sollen|wird|werden|ist|gibt|geht) (?:ich|wir|man|es|das|die|der)\b)/i,
  fr: /,\s+(?=(?:est-ce que|est ce que|est-ce qu'|je dois|on doit|faut-il|il faut|je peux|on peut|puis-je|peut-on)\b)/i,
}

function splitAtCommaQuestion(sentence: string, locale: Locale): string[] {
  return splitOnce(sentence, COMMA_QUESTION[locale], (left) => !CONDITION[locale].test(left))
}

/** "If I cancel, is my site deleted?" is one question: its first clause is the condition. */
const CONDITION: Record<Locale, RegExp> = {
  en: /^\s*(if|when|once|after|before|as soon as|in case)\b/i,
  de: /^\s*(wenn|falls|sobald|nachdem|bevor)\b/i,
  fr: /^\s*(si|s'il|quand|lorsque|lorsqu'|une fois|après|avant)\b/i,
}

/** The questions of a message: split at a question mark followed by more, and at "and" before a second question. */
export function splitQuestions(message: string, locale: Locale): string[] {
  const bySentence = message
    .replace(/’/g, "'")
    .split(/(?<=[?？])\s+/u)
    .map((s) => s.trim())
    .filter(Boolean)
  const parts: string[] = []
  for (const sentence of bySentence) {
    const pieces = sentence
      .split(SPLITTER[locale])
      .flatMap((p) => splitAtCommaAnd(p, locale))
      .flatMap((p) => splitAtCommaQuestion(p, locale))
    for (const p of pieces) parts.push(...splitAfterModal(p.trim(), locale))
  }
  // A piece too short to be a question of its own ("and?") stays with the one before.
  const merged: string[] = []
  for (const p of parts) {
    const cleaned = p.replace(LEADING_AND[locale], '')
    if (merged.length && cleaned.split(/\s+/).length < 3) merged[merged.length - 1] += ` ${p}`
    else merged.push(cleaned)
  }
  return merged.slice(0, 3)
}

/** "Can I cancel anytime and get my content out?": a modal question with a second verb after "and". */
const MODAL: Record<Locale, RegExp> = {
  en: /^(can|could|may) (i|we)\b/i,
  de: /^(kann|können|darf|dürfen) (ich|wir|man)\b/i,
  fr: /^(je peux|on peut|puis-je|peut-on|est-ce que je peux|est-ce qu'on peut)\b/i,
}
const INFINITIVE: Record<Locale, RegExp> = {
  en: /^[a-z]+\b/i,
  de: /^\S+/,
  fr: /^[a-zàâçéèêëîïôûùüÿœ]+(er|ir|re)\b/i,
}
function splitAfterModal(question: string, locale: Locale): string[] {
  const modal = MODAL[locale].exec(question)
  if (!modal || locale === 'de') return [question]
  const at = question.search(SPACED_AND[locale])
  if (at < 0) return [question]
  const right = question.slice(at).replace(LEADING_SPACED_AND[locale], '')
  const left = question.slice(0, at)
  if (right.split(/\s+/).length < 3 || left.split(/\s+/).length < 3 || !INFINITIVE[locale].test(right) || OPENER_WORD[locale].test(right))
    return [question]
  return [left, `${modal[0]} ${right}`]
}
/** What follows "and" is a thing, not a second verb: an article, or a plural ("photos of my bouquets and arrangements"). */
const OPENER_WORD: Record<Locale, RegExp> = {
  en: /^(the|a|an|my|our|your|its|their|this|that|these|those|some|all|more|other|also)\b|^[a-z]+[^s\s]s\b/i,
  de: /^$/,
  fr: /^$/,
}

/** "How does X work?": a question about a feature, even when X is the hand-off to a person. */
const HOW: Record<Locale, RegExp> = {
  en: /^\s*(how (does|do|is|are|would|will) (the|your|a|an|it|this|that)\b|how\b.*\b(work|works|happen|happens|handled?)\b|what happens when\b)/i,
  de: /^\s*(wie (funktioniert|funktionieren|läuft|laufen|übergibt|klappt|macht|leitet) (der|die|das|ihr|es|euer|eure)\b|wie\b.*\b(funktioniert|funktionieren|abläuft)\b)/i,
  fr: /^\s*(comment (marche|marchent|fonctionne|fonctionnent|se passe|l'|le |la |les |vous |votre |ça )|comment\b.*\b(fonctionne|marche)\b)/i,
}
export const asksHow = (message: string, locale: Locale) => HOW[locale].test(message)

/**
 * A request to reach a person, formal or informal: "pass me to someone", "kannst du mich
 * weiterleiten", "tu peux me passer quelqu'un". Read on the lower-cased message.
 */
const PERSON: Record<Locale, RegExp> = {
  en: /\b(put|pass|transfer|hand|connect|get|put me through|forward)\b.{0,12}\b(someone|somebody|a person|a human|a colleague|support|an agent|a real|real person|through to|over to)\b|\b(speak|talk|chat)\b.{0,6}\b(to|with)\b.{0,12}\b(someone|somebody|a person|an advisor|a human|support|sales|your team)\b|\b(someone|somebody) (real|on the (phone|line))\b|\bsomeone real\b|\bcall me back\b|\bsomeone to call me\b|\b(somebody|someone) help me personally\b|\bhelp me personally\b|\b(real|actual|live) person\b|\bnot a bot\b|\bhuman\b|\bconnect me\b|\b(colleague|someone|somebody|a person|sales)\b.{0,30}\b(contact|call|ping|email|e-mail|reach|ring) me\b/,
  de: /\b(gib|gebt|geben sie|verbind\w*|stell\w* mich|leit\w* mich|übergeb\w*|hol\w*)\b.{0,30}\b(jemand\w*|menschen?|mitarbeiter\w*|kolleg\w*|support|techniker\w*|berater\w*|durch|weiter)\b|\bmit\b.{0,30}\b(sprechen|reden|telefonieren|schreiben)\b|\b(sprechen|reden)\b.{0,6}\bmit\b|\bmit (einem|einer|jemandem|dem|der)\b.{0,25}\bverbind\w*|\bdurchstell\w*|\bweiterleit\w*\b.{0,20}\bjemand\w*|\bzurückruf\w*|\brückruf\b|\b(kann|könnte|koennte) mich\b.{0,20}\b(anrufen|zurückrufen)\b|\bpersönlich helfen\b|\bmensch\b|\bans telefon\b|\b(kolleg\w*|jemand\w*)\b.{0,40}\b(meldet|melden|anruft|anrufen|kontaktiert|kontaktieren|zurückruft)\b/,
  fr: /\b(passe[rz]?|passez|mets|mettez|mettre|transf\w*|trouver|trouve)\b.{0,12}\b(moi|me)?\b.{0,20}\b(quelqu'un|quelqu’un|une personne|humain|un collègue|collègue|en relation|en contact|le support|conseiller)\b|\bparler (à|a|avec)\b|\brappelle\b|\bquelqu'un de réel\b|\bm'aider personnellement\b|\baider personnellement\b|\bhumain\b|\bquelqu'un au téléphone\b|\b(collègues?|quelqu'un|qq1|une personne|conseill\w*)\b.{0,30}\b(me |m')(contacter|recontacter|rappeler|joindre|écrire|appeler)\b/,
}
/** A question about the assistant's own features ("can the chat hand over to a person?") is not a request. */
const ABOUT_FEATURE: Record<Locale, RegExp> = {
  en: /\b(assistant|chatbot|chat bot|widget|hand-?off|handover|hand over)\b.*\b(work|does|can it)\b/,
  de: /\b(assistent\w*|chatbot|übergabe)\b.*\b(funktioniert|kann er|kann es)\b/,
  fr: /\b(assistant|chatbot|transfert)\b.*\b(fonctionne|marche|peut-il)\b/,
}
/** "A template for advisors", "un modèle pour conseillers": a word for a person named as a kind of business. */
const AS_BUSINESS: Record<Locale, RegExp> = {
  en: /\b(templates?|layouts?|designs?) for\b/,
  de: /\b(vorlagen?|layouts?|designs?) für\b/,
  fr: /\b(modèles?|mises? en page|designs?) pour\b/,
}
export const namesBusiness = (message: string, locale: Locale) => AS_BUSINESS[locale].test(message.toLowerCase())

/** Other website builders by name: "how are you different from Wix?" asks for a comparison we do not make. */
const OTHER_BUILDER =
  /\b(wix|squarespace|jimdo|wordpress|webflow|weebly|godaddy|ionos|strato|shopify|hostinger|site123|webnode|framer|carrd|google sites|one\.com|duda)\b/
const COMPARES: Record<Locale, RegExp> = {
  en: /\b(different|difference|differ|better|worse|cheaper|vs\.?|versus|compared?|comparison|over|instead of|rather than|why (you|should))\b/,
  de: /\b(unterschied\w*|unterscheid\w*|besser|schlechter|günstiger|vs\.?|versus|vergleich\w*|statt|anstatt|gegenüber|lieber)\b/,
  fr: /\b(différence|différent\w*|mieux|moins cher|vs\.?|versus|compar\w*|plutôt que|au lieu de|pourquoi vous)\b/,
}
export const comparesWithOtherBuilder = (message: string, locale: Locale) => {
  const text = message.toLowerCase()
  return OTHER_BUILDER.test(text) && COMPARES[locale].test(text)
}

/** "How do I bring a colleague into the account?", "wie hole ich eine Kollegin ins Konto?": asking how to do something oneself. */
const HOW_TO: Record<Locale, RegExp> = {
  en: /^\s*how (do|can|could|should|would) (i|we)\b/,
  de: /^\s*wie \S+ (ich|wir|man)\b/,
  fr: /^\s*comment (je|j'|on|nous|est-ce que|puis-je|peut-on)\b/,
}

export function asksForPerson(message: string, locale: Locale): boolean {
  const text = message.toLowerCase().replace(/’/g, "'")
  if (asksHow(message, locale) || HOW_TO[locale].test(text) || ABOUT_FEATURE[locale].test(text) || AS_BUSINESS[locale].test(text))
    return false
  return PERSON[locale].test(text)
}

/**
 * "When does a downgrade happen?", "wie lange…", "à partir de quand…": the words that ask when are
 * stop words to retrieval, so a passage about the same thing without any time in it ("sites per
 * plan" beside "upgrades and downgrades") ranks as well. Such a question favours passages that
 * state a time.
 */
const ASKS_WHEN: Record<Locale, RegExp> = {
  en: /\b(when|how long|how soon|until when|by when|right away|immediately|at once|take effect|mid-?month)\b/,
  de: /\b(wann|wie lange|sofort|gleich|mitten im monat|monatsmitte)\b/,
  fr: /\b(quand|combien de temps|tout de suite|immédiatement|en milieu de mois|en cours de mois)\b/,
}
const STATES_TIME: Record<Locale, RegExp> = {
  en: /\b(at once|immediately|right away|end of|prorated|days|hours|minutes|valid)\b/i,
  de: /\b(sofort|ende|anteilig|tage|tagen|stunden|minuten|gültig)\b/i,
  fr: /\b(tout de suite|immédiatement|fin d[eu]|au prorata|jours|heures|minutes|valable)\b/i,
}
/** How much a time in a passage counts for a question asking when. */
const TIME_FAVOUR = 1.2

export const asksWhen = (message: string, locale: Locale) => ASKS_WHEN[locale].test(message.toLowerCase())

/**
 * "How does paying work, monthly by card?", "comment ça marche le paiement ?": a question about how
 * something works names money without asking an amount. Unless it asks one ("how much", "was
 * kostet", "combien"), it is answered by how the thing works, not by the price list.
 */
// Whole words by letters of any script: \b knows only ASCII letters, so it finds no end after the è of "chère".
const ASKS_AMOUNT: Record<Locale, RegExp> = {
  en: /(?<![\p{L}\p{N}])(how much|costs?|price[sd]?|pricing|expensive|cheap\p{L}*|fees?|euros?)(?![\p{L}\p{N}])|€/u,
  de: /(?<![\p{L}\p{N}])(wie ?viel|kostet|kosten|preis\p{L}*|teuer\p{L}*|günstig\p{L}*|gebühr\p{L}*|euro)(?![\p{L}\p{N}])|€/u,
  fr: /(?<![\p{L}\p{N}])(combien|co[uû]te?\p{L}*|prix|cher|chère|tarifs?|euros?)(?![\p{L}\p{N}])|€/u,
}
export const asksHowItWorks = (message: string, locale: Locale) =>
  asksHow(message, locale) && !ASKS_AMOUNT[locale].test(message.toLowerCase())

/** How much a passage quoting amounts counts for a question about how something works. */
const AMOUNTS_DISFAVOUR = 0.7
const QUOTES_AMOUNT = /\d\s?€|€\s?\d/

/**
 * The hits reordered for what the question asks: a "when" question puts passages stating a time
 * first; a "how does it work" question that asks no amount puts passages quoting prices after the others.
 */
export function favourIntent<H extends { score: number; passage: { text: string } }>(hits: H[], message: string, locale: Locale): H[] {
  const when = asksWhen(message, locale)
  const how = asksHowItWorks(message, locale)
  if (!when && !how) return hits
  return hits
    .map((h) => {
      let score = h.score
      if (when && STATES_TIME[locale].test(h.passage.text)) score *= TIME_FAVOUR
      if (how && QUOTES_AMOUNT.test(h.passage.text)) score *= AMOUNTS_DISFAVOUR
      return score === h.score ? h : { ...h, score }
    })
    .sort((a, b) => b.score - a.score)
}
