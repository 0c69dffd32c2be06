import { english, french, german } from 'multilingual-stemmer'
import type { Locale } from '../domain/locales.ts'
import { lexicon as groups } from './lexicon.ts'

// The Snowball algorithms (release 3.1) for German, English and French, compiled to WebAssembly.
const stemmers: Record<Locale, (word: string) => string> = { de: german, en: english, fr: french }

// Short lists of the words that carry no topic in each language; ranking ignores them. Besides
// grammar words they hold the verbs of asking ("do you offer", "gibt es", "proposez-vous"): a
// question that matches a passage only on those has not matched it at all.
const plainStopwords: Record<Locale, ReadonlySet<string>> = {
  en: new Set(
    'a an and are as at be but by can could do does did for from get got give have has how i if in is it its me my of on or our please so that the their them there this to us was we what when where which who why will with would you your much many any some also just there tell know like want need offer offers offering provide provides possible way ok okay thanks thank yes no include includes included including contain contains come comes work works working put use using take takes current currently existing already still later now anytime anything something everything really actually exactly pls plz please thx hey guys then than too very quite one ones bit lot lots kind sort stuff thing things should shall might must may am were been being had into about up out over just even ever here these those such only own well yet else instead rather ur ya exist exists existing whenever two three four five six seven eight nine ten all immediately most special mid simple full fast everything don whole'.split(
      ' ',
    ),
  ),
  de: new Set(
    'ab aber als am an auch auf aus bei bin bis bitte da das dass dein dem den der des die doch du ein eine einem einen einer es für hab habe haben hat ich ihr ihre ihnen im in ist ja kann können könnte man mein meine mich mir mit nach nicht noch nur ob oder sich sie sind so und uns unser von was welche welcher welches welchen welchem wenn wer wie wir wo zu zum zur gibt geben gib bieten bietet biete möglich viel denn mal danke gern gerne etwas enthält enthalten umfasst beinhaltet beinhalten dabei inklusive meiner meinen meinem meines deiner deinen ihrem ihren ihres unsere unseren unserem unserer euer eure sein seine wird werden würde gut später jetzt jederzeit funktioniert funktionieren geht läuft brauche brauchen benötige benötigen verwenden nutzen benutzen einsetzen bekomme bekommen erhalte kriege vielen viele vieles eigentlich genau wirklich alles irgendwie irgendwas ganz sehr schon dann also halt eben dazu darauf damit davon dafür hier dort diese dieser dieses diesen diesem jede jeder jedes jeden welchen gibts kriegt kriegen bekommt mache machen macht sollte sollten soll muss müssen möchte möchten will wollen würden hätte hätten wäre bzw ca eh einfach eure euren eurem euch ihr ihm ihn seid bist heißt heisst nennt existiert existieren zwei drei vier fünf sechs sieben acht neun zehn kannst könnt mitten meisten angeschaut ganzen ganze wann sofort schluss'.split(
      ' ',
    ),
  ),
  fr: new Set(
    'a au aux avec ce ces dans de des du elle en est et il je la le les leur ma mais me mes mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes ton tu un une vos votre vous y c d j l m n s t est-ce quel quelle quels quelles comment ce cela ça proposez propose proposer offrez il y a peut peux puis pouvez avez ai fait faire merci oui non bien si comprend comprennent inclus inclut incluse contient fonctionne fonctionnent marche marchent faut mettre utiliser obtenir combien avoir incluent ils elles tard maintenant vraiment exactement tout tous toute toutes quelque chose choses alors donc aussi très trop ici là cette cet celui celle ceux celles être suis es sommes êtes sont était sera serait ai as avons avez ont aurai aurais voudrais veux voulez souhaite souhaiterais dois doit devez svp stp merci bon ben bah hein genre quoi existe existent exister appelle deux trois quatre cinq sept huit neuf dix voulons soit dessus entier milieu quand suite'.split(
      ' ',
    ),
  ),
}

/**
 * Words visitors wrap a question in that no answer depends on: the pieces of contractions
 * ("they're", "we've"), hedges, asking verbs and fillers. Left out like stop words, so a question
 * phrased chattily weighs the same as its plain form.
 */
const fillers: Record<Locale, string> = {
  en: 're ve ll im ive id they he she his her him youre theyre dont doesnt didnt isnt arent cant wont wouldnt couldnt shouldnt hasnt havent whats wats hows wheres theres thats able allowed let lets maybe perhaps probably possibly somehow basically generally usually normally simply honestly literally kinda sorta gonna wanna gotta dunno guess wonder wondering wondered curious question questions quick quickly briefly between both either per via anyway anyhow hi hello dear folks guy sir madam sure okay alright hope hoping think thinking trying tried understand understood explain tell told wonderful great nice cool lovely love directly straight',
  de: 'ne nen nem ner werde wirst werdet wurde wurden zwischen etwa etwas paar vielleicht ungefähr ungefaehr lieber brauch bräuchte bräuchten vs gegenüber irgendwie gerade grad bisschen bissl trotzdem sowieso überhaupt bereits eher wohl echt bloß frage fragen kurze kurz sagen erklären erklärt verstehe verstanden hallo moin servus liebe lieber lieben grüße gruß ok okay klar super toll prima schön leute quasi sozusagen jemals erstmal erst mehrere beispielsweise zb darf darfst dürfen dürft direkt',
  fr: 'aimerais peuvent pouvons puisse puissent aimerait aimerions pouvoir pourrais pourrait pourriez pourrions juste environ beaucoup plaît plait préfère préférerais vs entre dire expliquer expliquez voudrions souhaiterions question questions rapide rapidement petite bonjour salut coucou madame monsieur ok okay super génial vraiment parfois souvent déjà encore plutôt peut-être etre être genre sinon bref franchement directement',
}

/**
 * Words for a kind of business: a visitor names their trade ("a template for my bakery", "I run a
 * salon") as the setting of a question, not as what it asks about. Left out of a question's terms
 * (the recommendation reads the message itself), so a trade the knowledge files never mention does
 * not make a question about its site look unknown.
 */
const trades: Record<Locale, string> = {
  en: 'bakery bakeries baker bakers bakehouse patisserie café cafe cafes cafés coffeeshop bistro bar pub brewery winery butcher butchers deli florist florists salon salons hairdresser hairdressers hairstylist hairstylists barber barbers barbershop beautician nail nails spa physio physios physiotherapist physiotherapists physiotherapy dentist dentists doctor doctors vet vets veterinary pharmacy optician opticians osteopath chiropractor masseur therapist therapists psychotherapist plumber plumbers plumbing electrician electricians carpenter carpenters joiner roofer roofers painter painters decorator gardener gardeners landscaper mechanic mechanics locksmith tiler builder builders handyman tradesman tradesmen craftsman craftsmen craftsperson coach coaches coaching trainer trainers tutor tutors yoga pilates fitness gym gyms studio studios club clubs association associations society choir orchestra band charity treasurer treasurers chairman chairwoman lawyer lawyers solicitor notary accountant accountants bookkeeper consultant consultants freelancer freelancers startup startups hotel hotels guesthouse inn hostel bookshop bookstore jeweller jewellery kindergarten nursery daycare school schools retiree pensioner',
  de: 'bäckerei bäckereien bäcker konditorei konditor café cafés bistro kneipe bar brauerei weingut metzgerei metzger fleischerei blumenladen florist floristin salon salons friseur friseure friseurin friseursalon frisör frisörin barbier kosmetikerin kosmetikstudio nagelstudio physio physiotherapeut physiotherapeutin physiotherapie physiopraxis zahnarzt zahnärztin arzt ärztin tierarzt apotheke optiker osteopath heilpraktiker heilpraktikerin masseur therapeut therapeutin therapeuten therapeutinnen installateur klempner sanitär elektriker elektrikerin schreiner tischler zimmermann dachdecker maler gärtner gartenbau landschaftsgärtner mechaniker werkstatt kfz schlosser fliesenleger handwerker handwerkerin handwerksbetrieb coach coaches coaching trainer trainerin nachhilfe yoga pilates fitness fitnessstudio studio verein vereine sportverein chor orchester band kassenwart kassenwartin kassierer schatzmeister vorsitzender vorsitzende anwalt anwältin kanzlei notar steuerberater steuerberaterin buchhalter berater beraterin freiberufler freiberuflerin selbstständig selbständig startup hotel pension gasthaus gasthof ferienwohnung buchhandlung juwelier kita kindergarten schule rentner rentnerin',
  fr: 'boutique boutiques magasin magasins boulangerie boulangeries boulanger boulangère pâtisserie pâtissier café cafés bistrot bar brasserie caviste boucherie boucher charcuterie fleuriste salon salons coiffeur coiffeuse coiffeurs coiffure barbier esthéticienne onglerie kiné kinés kinésithérapeute kinésithérapie dentiste médecin vétérinaire pharmacie opticien ostéopathe masseur thérapeute thérapeutes psychologue plombier plombiers plomberie électricien électricienne menuisier charpentier couvreur peintre jardinier paysagiste mécanicien garagiste serrurier carreleur artisan artisans artisane coach coachs coaching entraîneur professeur yoga pilates fitness studio association associations club clubs chorale orchestre trésorier trésorière président présidente avocat avocate notaire comptable expert-comptable consultant consultante freelance indépendant indépendante startup hôtel hôtels gîte librairie bijouterie crèche école retraité retraitée',
}

/**
 * Everyday verbs, adjectives and pronouns that no answer turns on ("know", "little", "everyone",
 * "aussieht", "genutzt", "ressemble"): a question worded in them is about its other words. Left
 * out like stop words, so a new wording is not read as a question about something unknown.
 */
const everyday: Record<Locale, string> = {
  en: 'ppl know knowing knows knew see sees seeing seen saw little small tiny big huge everyone everybody anyone anybody nobody used usable appear appears appearing other others another same new newest latest good bad better best easy easily properly correctly sometime sometimes often somewhere anywhere everywhere make makes making go goes going went mean means become becomes seem seems feel ask asking run running bunch doable feasible single each second third until till last without having under',
  de: 'kennen kenne sehen sieht sah gesehen aussieht klein kleine kleines kleinen kleiner groß große großes großen alle allen jemals genutzt benutzt verwendet erscheinen erscheint neu neue neuen neues gut gute guten besser beste leicht oft manchmal irgendwann irgendwo überall anders andere anderen anderes gleich gleiche gleichen kommen kommt meinen meint lassen lässt selber selbst gehen geh reinstellen reinsetzen draufpacken reinpacken beispiel habt sowas aufm aufs ausm einzeln einzelne einzelnen einzige einstellen einstelle einstellt eingestellt vom ins ans beim komm komme gilt gelten zweite zweiten zweiter dritte dritten rein letzte letzten letzter ohne',
  fr: 'connaître connaitre connais connait voir vu vue voie verra ressemble ressembler petit petite petits petites grand grande monde autre autres même mêmes nouveau nouvelle nouveaux bon bonne mieux meilleur meilleure facile facilement simplement vite souvent parfois jamais toujours partout affiché affichée affichés affichées apparaître apparaît utilisé utilisée servir sert servira aller va vont penser exemple truc trucs machin chez coup utilise utilisez utilisent utilisons utiliserez voient voyez voyons chaque deuxième troisième jusqu jusque dernière dernier derniers devient deviennent devenir deviendra',
}

const withWords = (list: string): ReadonlySet<string> => new Set(list.split(' '))
const stopwords: Record<Locale, ReadonlySet<string>> = {
  en: new Set([...plainStopwords.en, ...withWords(fillers.en), ...withWords(everyday.en)]),
  de: new Set([...plainStopwords.de, ...withWords(fillers.de), ...withWords(everyday.de)]),
  fr: new Set([...plainStopwords.fr, ...withWords(fillers.fr), ...withWords(everyday.fr)]),
}
const tradeWords: Record<Locale, ReadonlySet<string>> = { en: withWords(trades.en), de: withWords(trades.de), fr: withWords(trades.fr) }
/** A word naming a kind of business ("florist", "Friseur", "plombier"). */
export const isTrade = (word: string, locale: Locale) => tradeWords[locale].has(word)

const cache = new Map<string, string>()
const CACHE_LIMIT = 50_000

/** Letters without their accents, ß as ss: "résilier" and "resilier" are one word to a reader. */
export function fold(word: string): string {
  return word
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .normalize('NFC')
}

const folds = new Map<string, string>()
function foldWord(word: string): string {
  let out = folds.get(word)
  if (out === undefined) {
    out = fold(word)
    if (folds.size < CACHE_LIMIT) folds.set(word, out)
  }
  return out
}

/** A word's Snowball stem in the locale, accents folded; remembered, since visitors repeat their words. */
export function stem(word: string, locale: Locale): string {
  const key = `${locale}:${word}`
  let out = cache.get(key)
  if (out === undefined) {
    out = fold(stemmers[locale](word))
    if (cache.size < CACHE_LIMIT) cache.set(key, out)
  }
  return out
}

/** The lower-cased words of a text, apostrophes and hyphens splitting words (l'offre, SEO-Audit). */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
}

export const isStopword = (word: string, locale: Locale) => stopwords[locale].has(word)
export const stopwordList = (locale: Locale): Iterable<string> => stopwords[locale]

/** One unit of a text: a term the lexicon gave, or a word still to be stemmed. */
export type LexiconToken = { term: string; word?: undefined } | { word: string; term?: undefined }

interface Lexicon {
  /** The longest lexicon phrase (or word as written) starting at a position of folded words. */
  phraseAt(folded: readonly string[], at: number): { term: string; length: number } | undefined
  /** The term a stem's lexicon group stands for. */
  synonym(stem: string): string | undefined
}

const lexicons = new Map<Locale, Lexicon>()

/**
 * The locale's lexicon, compiled once: every entry of a group stands for the stem of the group's
 * first word. Entries are matched as written (folded), longest first, before stop words are dropped,
 * so "how much" or "wie viel" count; single words also match through their stem, so every inflection does.
 */
function lexiconFor(locale: Locale): Lexicon {
  let compiled = lexicons.get(locale)
  if (compiled) return compiled
  const phrases = new Map<string, Array<{ words: string[]; term: string }>>()
  const bystem = new Map<string, string>()
  for (const group of groups[locale]) {
    const term = stem(words(group[0]!)[0]!, locale)
    for (const entry of group) {
      const written = words(entry)
      const list = written.map(fold)
      if (list.length === 0) continue
      if (list.length === 1 && !stopwords[locale].has(written[0]!)) {
        const s = stem(written[0]!, locale)
        if (!bystem.has(s)) bystem.set(s, term)
      }
      let starting = phrases.get(list[0]!)
      if (!starting) phrases.set(list[0]!, (starting = []))
      starting.push({ words: list, term })
    }
  }
  for (const list of phrases.values()) list.sort((a, b) => b.words.length - a.words.length)
  compiled = {
    phraseAt(folded, at) {
      for (const p of phrases.get(folded[at]!) ?? []) {
        if (p.words.every((w, k) => folded[at + k] === w)) return { term: p.term, length: p.words.length }
      }
      return undefined
    },
    synonym: (s) => bystem.get(s),
  }
  lexicons.set(locale, compiled)
  return compiled
}

/**
 * A text's words as the index reads them: phrases and words of the locale's lexicon become the
 * term of their meaning ("how much" and "cost" are "price"); other words stay words, stop words
 * and single letters dropped. Terms are stems already; words are stemmed by the caller, which may
 * first correct or split them.
 */
export function tokens(text: string, locale: Locale): LexiconToken[] {
  const list = words(text)
  const folded = list.map(foldWord)
  const lexicon = lexiconFor(locale)
  const out: LexiconToken[] = []
  for (let i = 0; i < list.length; ) {
    const phrase = lexicon.phraseAt(folded, i)
    if (phrase) {
      out.push({ term: phrase.term })
      i += phrase.length
      continue
    }
    const word = list[i++]!
    // Bare numbers say little about a topic ("5 websites" is not about the €5 seat) and are left out.
    if (stopwords[locale].has(word) || word.length < 2 || /^\d+$/.test(word)) continue
    out.push({ word })
  }
  return out
}

/** A word's term: its stem, or the stem its lexicon group stands for. */
export function termOf(word: string, locale: Locale): string {
  const s = stem(word, locale)
  return lexiconFor(locale).synonym(s) ?? s
}

/** Terms of a text in a locale: lexicon meanings and word stems, stop words dropped; elisions (l'offre, d'un) split off. */
export function terms(text: string, locale: Locale): string[] {
  return tokens(text, locale).map((t) => t.term ?? termOf(t.word!, locale))
}

/** A message made ready for phrase matching once: its words joined by single spaces, padded, and where each word starts. */
export interface Hay {
  text: string
  /** Each word with the position of the space before it in `text`. */
  words: ReadonlyArray<{ word: string; at: number }>
}

export function haystack(text: string): Hay {
  const list = words(text)
  const at: Array<{ word: string; at: number }> = []
  let position = 0
  for (const word of list) {
    at.push({ word, at: position })
    position += word.length + 1
  }
  return { text: ` ${list.join(' ')} `, words: at }
}

/**
 * Each phrase list by the first word of its phrases, each phrase padded with a space either side:
 * made once per list (lists are constants), so a haystack is read word by word, not once per phrase.
 */
const byFirstWord = new WeakMap<readonly string[], ReadonlyMap<string, readonly string[]>>()

function phrasesByFirstWord(phrases: readonly string[]): ReadonlyMap<string, readonly string[]> {
  let index = byFirstWord.get(phrases)
  if (!index) {
    const built = new Map<string, string[]>()
    for (const phrase of phrases) {
      const first = phrase.split(' ', 1)[0]!
      let list = built.get(first)
      if (!list) built.set(first, (list = []))
      list.push(` ${phrase} `)
    }
    byFirstWord.set(phrases, (index = built))
  }
  return index
}

/** True when any of the phrases occurs in a haystack as whole words. */
export function has(hay: Hay, phrases: readonly string[]): boolean {
  const index = phrasesByFirstWord(phrases)
  for (const { word, at } of hay.words) {
    const starting = index.get(word)
    if (starting) for (const phrase of starting) if (hay.text.startsWith(phrase, at)) return true
  }
  return false
}

/** True when any of the phrases occurs in the text as whole words (case-insensitive). */
export function mentions(text: string, phrases: readonly string[]): boolean {
  return has(haystack(text), phrases)
}

const NBSP = '\u00a0'
const NNBSP = '\u202f'

/**
 * French typography: a no-break space before a colon, a narrow no-break space before ; ! ? % and
 * inside « », so a line never starts with the sign. Only spaces already written are changed, so
 * addresses and times (https://, 9:00) stay as they are.
 */
export function frenchTypography(text: string): string {
  return text
    .replace(/[ \u00a0\u202f]+:/g, `${NBSP}:`)
    .replace(/[ \u00a0\u202f]+([;!?»%])/g, `${NNBSP}$1`)
    .replace(/«[ \u00a0\u202f]+/g, `«${NNBSP}`)
}

/** The reply's typography for its locale (French spacing; German and English need nothing). */
export function typeset(text: string, locale: Locale): string {
  return locale === 'fr' ? frenchTypography(text) : text
}
