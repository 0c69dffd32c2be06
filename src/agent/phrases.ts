import type { Locale } from '../domain/locales.ts'
import type { AgentSuggestion } from './schemas.ts'

type Localized<T> = Record<Locale, T>

/** Fixed wording of the assistant per locale; the knowledge base and the price list supply every fact. */
export const phrases = {
  openerNamed: {
    de: (persona: string, site: string) =>
      `Hallo, ich bin ${persona}, der digitale Assistent von ${site}. Fragen Sie mich gern nach Tarifen, Funktionen oder einem Demo-Termin.`,
    en: (persona: string, site: string) =>
      `Hi, I'm ${persona}, the digital assistant of ${site}. Ask me about plans, features or booking a demo.`,
    fr: (persona: string, site: string) =>
      `Bonjour, je suis ${persona}, l'assistant numérique de ${site}. Posez-moi vos questions sur les formules, les fonctions ou une démo.`,
  },
  opener: {
    de: (site: string) => `Hallo! Ich bin der digitale Assistent von ${site}. Wie kann ich helfen?`,
    en: (site: string) => `Hi! I'm the digital assistant of ${site}. How can I help?`,
    fr: (site: string) => `Bonjour ! Je suis l'assistant numérique de ${site}. Comment puis-je vous aider ?`,
  },
  greeting: {
    de: 'Hallo! Wobei kann ich helfen? Ich kenne mich mit Tarifen, Funktionen, dem SEO-Audit, Domains und Demo-Terminen aus.',
    en: 'Hello! What can I help you with? I know about plans, features, the SEO audit, domains and booking a demo.',
    fr: "Bonjour ! En quoi puis-je vous aider ? Je connais les formules, les fonctions, l'audit SEO, les domaines et les démos.",
  },
  thanks: {
    de: 'Gern geschehen! Kann ich sonst noch helfen?',
    en: "You're welcome! Is there anything else I can help with?",
    fr: 'Avec plaisir ! Puis-je vous aider pour autre chose ?',
  },
  /** Off topic: nothing in the knowledge base touches the question. */
  noAnswer: {
    de: 'Dazu habe ich leider keine gesicherte Information. Ich kann Fragen zu Tarifen und Preisen, Funktionen, dem SEO-Audit, Domains, dem KI-Assistenten und Demo-Terminen beantworten.',
    en: "I don't have reliable information on that. I can answer questions about plans and prices, features, the SEO audit, domains, the AI assistant and booking a demo.",
    fr: "Je n'ai pas d'information fiable à ce sujet. Je peux répondre aux questions sur les formules et les prix, les fonctions, l'audit SEO, les domaines, l'assistant IA et les démos.",
  },
  /** On topic, but nothing the assistant knows answers it for sure. */
  notSure: {
    de: 'Das kann ich Ihnen leider nicht sicher beantworten, und raten möchte ich nicht.',
    en: "I can't answer that for sure, and I'd rather not guess.",
    fr: 'Je ne peux pas vous répondre avec certitude, et je préfère ne pas deviner.',
  },
  /** After the answered parts of a compound message, for a part nothing answers. */
  partUncertain: {
    de: 'Den Rest kann ich nicht sicher sagen; ein Mensch aus unserem Team hilft gern weiter.',
    en: "The rest I can't say for certain; a person from our team can help with it.",
    fr: 'Pour le reste, je ne peux pas dire avec certitude ; une personne de notre équipe peut vous aider.',
  },
  /** Before what we offer, to a question comparing us with another website builder by name. */
  otherProviders: {
    de: 'Andere Anbieter bewerte ich nicht; das bieten wir:',
    en: "I won't judge other providers, but this is what we offer:",
    fr: 'Je ne juge pas les autres prestataires ; voici ce que nous proposons :',
  },
  /** After the likely answer to a question worded unlike anything the knowledge base holds. */
  mayNotCoverAll: {
    de: 'Ob das Ihre Frage ganz beantwortet, kann ich nicht sicher sagen; fragen Sie gern genauer nach.',
    en: "I'm not certain that covers all of your question; feel free to ask more precisely.",
    fr: "Je ne suis pas certain que cela réponde à toute votre question ; n'hésitez pas à préciser.",
  },
  /** The next step after "not sure", by what the site offers. */
  askPerson: {
    de: 'Ein Mensch aus unserem Team kann Ihnen weiterhelfen: Bitten Sie einfach darum, mit einem Menschen zu sprechen.',
    en: 'A person from our team can help: just ask to talk to a person.',
    fr: 'Une personne de notre équipe peut vous aider : demandez simplement à parler à une personne.',
  },
  askPersonOrLead: {
    de: 'Ein Mensch aus unserem Team kann Ihnen weiterhelfen: Bitten Sie darum, mit einem Menschen zu sprechen, oder hinterlassen Sie Ihre E-Mail-Adresse, dann melden wir uns.',
    en: "A person from our team can help: ask to talk to a person, or leave your email address and we'll get back to you.",
    fr: 'Une personne de notre équipe peut vous aider : demandez à parler à une personne, ou laissez votre adresse e-mail et nous reviendrons vers vous.',
  },
  askLead: {
    de: 'Hinterlassen Sie gern Ihre E-Mail-Adresse, dann meldet sich unser Team mit der Antwort.',
    en: 'Leave your email address and our team will get back to you with the answer.',
    fr: 'Laissez votre adresse e-mail et notre équipe vous répondra.',
  },
  askContactPage: {
    de: 'Unser Team beantwortet die Frage gern über die Kontaktseite.',
    en: 'Our team can answer it through the contact page.',
    fr: 'Notre équipe peut vous répondre via la page de contact.',
  },
  handoffRequested: {
    de: 'Gern verbinde ich Sie mit einem Menschen aus dem Team. Jemand übernimmt hier im Chat, sobald er verfügbar ist.',
    en: "I'll connect you with a person from the team. Someone will join this chat as soon as they are available.",
    fr: "Je vous mets en relation avec une personne de l'équipe. Quelqu'un rejoindra ce chat dès que possible.",
  },
  handoffPending: {
    de: 'Ihre Anfrage an das Team ist schon unterwegs; bis dahin helfe ich gern weiter.',
    en: 'Your request for a person is already on its way; until then I am happy to help.',
    fr: 'Votre demande de mise en relation est déjà transmise ; en attendant, je reste à votre disposition.',
  },
  handoffUnavailable: {
    de: 'Ein direktes Gespräch mit dem Team ist hier im Chat leider nicht möglich. Hinterlassen Sie gern Ihre Kontaktdaten, dann meldet sich jemand bei Ihnen.',
    en: "A live conversation with the team isn't available in this chat. Leave your contact details and someone will get back to you.",
    fr: "Une conversation en direct avec l'équipe n'est pas disponible dans ce chat. Laissez vos coordonnées et quelqu'un vous recontactera.",
  },
  handoffUnavailableContact: {
    de: 'Ein direktes Gespräch mit dem Team ist hier im Chat leider nicht möglich. Das Team erreichen Sie über die Kontaktseite.',
    en: "A live conversation with the team isn't available in this chat. You can reach the team through the contact page.",
    fr: "Une conversation en direct avec l'équipe n'est pas disponible dans ce chat. Vous pouvez joindre l'équipe via la page de contact.",
  },
  handoffActive: {
    de: 'Ein Mitarbeiter betreut dieses Gespräch und antwortet Ihnen hier.',
    en: 'A team member is handling this conversation and will answer you here.',
    fr: "Un membre de l'équipe s'occupe de cette conversation et vous répondra ici.",
  },
  leadInvite: {
    de: 'Wenn Sie möchten, hinterlassen Sie Ihre E-Mail-Adresse und wir melden uns mit einem passenden Angebot.',
    en: "If you like, leave your email address and we'll get back to you with a fitting offer.",
    fr: 'Si vous le souhaitez, laissez votre adresse e-mail et nous reviendrons vers vous avec une offre adaptée.',
  },
  bookingInvite: {
    de: 'Einen Termin können Sie direkt im Kalender buchen.',
    en: 'You can book a time directly in the calendar.',
    fr: 'Vous pouvez réserver un créneau directement dans le calendrier.',
  },
  /** One line after an answer when another passage was about as likely meant. */
  orDidYouMean: {
    de: (topic: string) => `Oder meinten Sie „${topic}“?`,
    en: (topic: string) => `Or did you mean “${topic}”?`,
    fr: (topic: string) => `Ou parliez-vous de « ${topic} » ?`,
  },
  signUpInvite: {
    de: (plan: string | undefined) => `Zum Start registrieren Sie sich auf der Preisseite und wählen ${plan ?? 'Ihren Tarif'}.`,
    en: (plan: string | undefined) => `To start, sign up on the pricing page and choose ${plan ?? 'your plan'}.`,
    fr: (plan: string | undefined) => `Pour commencer, inscrivez-vous depuis la page des tarifs et choisissez ${plan ?? 'votre formule'}.`,
  },
} as const

/** Sentences about prices; amounts arrive formatted for the locale. */
export const priceWording = {
  plan: {
    de: (name: string, month: string, year: string, off: string) =>
      `${name} kostet ${month} pro Monat oder ${year} pro Jahr bei jährlicher Zahlung (${off} Rabatt).`,
    en: (name: string, month: string, year: string, off: string) =>
      `${name} costs ${month} a month, or ${year} a year when paid yearly (${off} off).`,
    fr: (name: string, month: string, year: string, off: string) =>
      `${name} coûte ${month} par mois, ou ${year} par an en paiement annuel (${off} de remise).`,
  },
  freePlan: {
    de: (name: string) => `${name} ist kostenlos.`,
    en: (name: string) => `${name} costs nothing.`,
    fr: (name: string) => `${name} est gratuite.`,
  },
  /** Something the knowledge base does not name, asked about as part of a plan: what the plan does include instead. */
  notPartOf: {
    de: (plan: string, summary: string) => `Soweit ich weiß, ist das nicht im Angebot von ${plan}; ${plan} enthält ${summary}.`,
    en: (plan: string, summary: string) => `As far as I know, that is not part of ${plan}; ${plan} includes ${summary}.`,
    fr: (plan: string, summary: string) => `À ma connaissance, cela ne fait pas partie de ${plan} ; ${plan} comprend ${summary}.`,
  },
  includes: {
    de: (summary: string) => `Enthalten sind ${summary}.`,
    en: (summary: string) => `It includes ${summary}.`,
    fr: (summary: string) => `Elle comprend ${summary}.`,
  },
  includesFirst: {
    de: (name: string, summary: string, price: string) => `${name} umfasst ${summary}, für ${price}.`,
    en: (name: string, summary: string, price: string) => `${name} includes ${summary}, for ${price}.`,
    fr: (name: string, summary: string, price: string) => `${name} comprend ${summary}, pour ${price}.`,
  },
  freeIncludesFirst: {
    de: (name: string, summary: string) => `${name} umfasst kostenlos ${summary}.`,
    en: (name: string, summary: string) => `${name} includes ${summary}, at no cost.`,
    fr: (name: string, summary: string) => `${name} comprend gratuitement ${summary}.`,
  },
  monthAndYear: {
    de: (month: string, year: string) => `${month} pro Monat (${year} pro Jahr bei jährlicher Zahlung)`,
    en: (month: string, year: string) => `${month} a month (${year} a year when paid yearly)`,
    fr: (month: string, year: string) => `${month} par mois (${year} par an en paiement annuel)`,
  },
  compare: {
    de: (prices: string) => `Pro Monat kostet ${prices}.`,
    en: (prices: string) => `Per month, ${prices}.`,
    fr: (prices: string) => `Par mois, ${prices}.`,
  },
  /** "Plus costs €19" inside a comparison; later entries drop the verb ("and Pro €49"). */
  compareItem: {
    de: (name: string, price: string) => `${name} ${price}`,
    en: (name: string, price: string, first: boolean) => (first ? `${name} costs ${price}` : `${name} ${price}`),
    fr: (name: string, price: string, first: boolean) => (first ? `${name} coûte ${price}` : `${name} ${price}`),
  },
  compareIncludes: {
    de: (name: string, summary: string) => `${name} umfasst ${summary}`,
    en: (name: string, summary: string) => `${name} includes ${summary}`,
    fr: (name: string, summary: string) => `${name} comprend ${summary}`,
  },
  allPlans: {
    de: (list: string, off: string) =>
      `Die Tarife kosten pro Monat: ${list} (netto, zuzüglich Mehrwertsteuer, wo sie anfällt). Bei jährlicher Zahlung sparen Sie ${off}.`,
    en: (list: string, off: string) =>
      `Per month, the plans cost: ${list} (net; VAT is added where it applies). Paying yearly saves ${off}.`,
    fr: (list: string, off: string) =>
      `Les formules coûtent par mois : ${list} (hors taxes ; la TVA s'ajoute le cas échéant). Le paiement annuel fait économiser ${off}.`,
  },
  addOn: {
    de: (name: string, month: string, description: string) => `Die Zusatzoption „${name}“ kostet ${month} pro Monat: ${description}.`,
    en: (name: string, month: string, description: string) => `The ${name} add-on costs ${month} a month: ${description}.`,
    fr: (name: string, month: string, description: string) => `L'option « ${name} » coûte ${month} par mois : ${description}.`,
  },
  seatsIncluded: {
    de: (list: string) => `Enthaltene Teamplätze: ${list}.`,
    en: (list: string) => `Seats included: ${list}.`,
    fr: (list: string) => `Utilisateurs inclus : ${list}.`,
  },
  unlimited: { de: 'unbegrenzt', en: 'unlimited', fr: 'illimité' },
  and: { de: 'und', en: 'and', fr: 'et' },
}

/** A list read aloud: "A, B and C". */
export function joinList(items: readonly string[], locale: Locale): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} ${priceWording.and[locale]} ${items.at(-1)}`
}

export const openerSuggestions: Localized<{ pricing: AgentSuggestion; demo: AgentSuggestion; features: AgentSuggestion }> = {
  de: {
    pricing: { label: 'Preise ansehen', prompt: 'Was kosten die Tarife?' },
    demo: { label: 'Demo buchen', prompt: 'Ich möchte einen Demo-Termin buchen' },
    features: { label: 'Funktionen', prompt: 'Welche Funktionen bietet der Baukasten?' },
  },
  en: {
    pricing: { label: 'See prices', prompt: 'How much do the plans cost?' },
    demo: { label: 'Book a demo', prompt: 'I would like to book a demo' },
    features: { label: 'Features', prompt: 'What features does the builder offer?' },
  },
  fr: {
    pricing: { label: 'Voir les prix', prompt: 'Combien coûtent les formules ?' },
    demo: { label: 'Réserver une démo', prompt: 'Je voudrais réserver une démo' },
    features: { label: 'Fonctions', prompt: 'Quelles fonctions offre le créateur de sites ?' },
  },
}

/** The button that asks for a person, offered when the assistant cannot answer and the site offers handoff. */
export const askPersonSuggestion: Localized<AgentSuggestion> = {
  de: { label: 'Mit einem Menschen sprechen', prompt: 'Ich möchte mit einem Menschen sprechen' },
  en: { label: 'Talk to a person', prompt: 'I would like to talk to a person' },
  fr: { label: 'Parler à une personne', prompt: 'Je voudrais parler à une personne' },
}

export type Intent = 'handoff' | 'booking' | 'buying' | 'offerRequest' | 'price' | 'greeting' | 'thanks' | 'aboutUs'

/** Phrases that show an intent, matched as whole words on the lower-cased message. */
export const intents: Record<Intent, Localized<readonly string[]>> = {
  handoff: {
    de: [
      'mensch',
      'menschen',
      'mit einem mitarbeiter',
      'mit einer mitarbeiterin',
      'mitarbeiter sprechen',
      'mitarbeiterin sprechen',
      'echte person',
      'einer person',
      'berater',
      'beraterin',
      'jemanden sprechen',
      'mit jemandem',
      'ansprechpartner',
      'verkäufer',
      'vertrieb sprechen',
    ],
    en: [
      'human',
      'a person',
      'real person',
      'talk to someone',
      'speak to someone',
      'speak with someone',
      'talk with someone',
      'live agent',
      'human agent',
      'real agent',
      'operator',
      'representative',
      'salesperson',
      'sales team',
      'talk to sales',
      'speak to sales',
      'talk to a team member',
      'speak to a team member',
      'speak with a team member',
      'live chat',
    ],
    fr: [
      'humain',
      'une personne',
      'vraie personne',
      'conseiller',
      'conseillère',
      'parler à quelqu un',
      'quelqu un de l équipe',
      'quelqu un de réel',
      'opérateur',
      'un commercial',
      'service commercial',
      'équipe commerciale',
      'membre de l équipe',
    ],
  },
  booking: {
    de: [
      'demo',
      'termin',
      'vorführung',
      'rückruf',
      'beratungstermin',
      'onboarding',
      'onboarding termin',
      // Informal: "zeig mir das mal live", "kurzer Videocall".
      'videocall',
      'video call',
      'videotermin',
      'live zeigen',
      'live vorführen',
      'zeig mir das',
      'zeigen sie mir das',
      'rundgang',
    ],
    en: [
      'demo',
      'appointment',
      'book a call',
      'schedule a call',
      'schedule',
      'meeting',
      'onboarding',
      // Informal: "show me the thing live", "a quick video call".
      'video call',
      'quick call',
      'zoom call',
      'live demo',
      'show me live',
      'show me the thing',
      'show me around',
      'walk me through',
      'walkthrough',
      'screen share',
    ],
    fr: [
      'démo',
      'demo',
      'rendez vous',
      'rdv',
      'démonstration',
      'rappel',
      'accompagnement',
      // Familier : « tu peux me montrer ça en direct », « un petit appel vidéo ».
      'appel vidéo',
      'visio',
      'me montrer ça',
      'montre moi',
      'montrez moi',
      'en direct',
      'présentation en ligne',
    ],
  },
  buying: {
    de: [
      'kaufen',
      'bestellen',
      'abschließen',
      'registrieren',
      'anmelden',
      'loslegen',
      'upgrade auf',
      'wechseln zu',
      'wechsle zu',
      'wechsle ich zu',
      'umsteigen auf',
      'ich nehme',
      'nehme ich',
      'interesse',
      'buchen',
      'starten',
      'abonnieren',
    ],
    en: [
      'buy',
      'purchase',
      'order',
      'sign up',
      'signup',
      'subscribe',
      'get started',
      'upgrade to',
      'register',
      'start with',
      'i ll take',
      'i will take',
      'i want the',
      'i d like the',
      'i would like the',
      'interested in',
      'switch to',
      'go with',
    ],
    fr: [
      'acheter',
      'commander',
      'souscrire',
      'abonner',
      'inscrire',
      'commencer',
      'je prends',
      'je veux la',
      'je voudrais la',
      'intéressé',
      'intéressée',
      'passer à',
      'prendre la',
      'démarrer',
    ],
  },
  offerRequest: {
    de: ['angebot', 'kontaktieren sie mich', 'melden sie sich', 'rufen sie mich', 'rückruf', 'schicken sie mir'],
    en: ['a quote', 'quote for', 'an offer', 'send me', 'contact me', 'get back to me', 'call me', 'call back'],
    fr: ['devis', 'proposition', 'contactez moi', 'recontactez moi', 'rappelez moi', 'envoyez moi'],
  },
  price: {
    de: [
      'preis',
      'preise',
      'kosten',
      'kostet',
      'teuer',
      'günstig',
      'günstigste',
      'billig',
      'gebühr',
      'gebühren',
      'zahlen',
      'bezahlen',
      'zahlung',
      'euro',
      'monatlich',
      'jährlich',
      'pro monat',
      'im monat',
      'abrechnung',
    ],
    en: [
      'price',
      'prices',
      'pricing',
      'cost',
      'costs',
      'how much',
      'expensive',
      'cheap',
      'cheapest',
      'fee',
      'fees',
      'pay',
      'payment',
      'euro',
      'euros',
      'monthly',
      'yearly',
      'per month',
      'a month',
      'billing',
    ],
    fr: [
      'prix',
      'coût',
      'coûte',
      'coûtent',
      'combien ça',
      'combien pour',
      'tarif',
      'tarifs',
      'cher',
      'payer',
      'paiement',
      'euro',
      'euros',
      'mensuel',
      'annuel',
      'par mois',
      'facturation',
    ],
  },
  greeting: {
    de: ['hallo', 'hi', 'guten tag', 'moin', 'servus', 'hey'],
    en: ['hello', 'hi', 'hey', 'good morning', 'good afternoon'],
    fr: ['bonjour', 'salut', 'bonsoir', 'coucou'],
  },
  /** A question about the company or its product ("do you have an app?"): unknown is then "not sure", never off topic. */
  aboutUs: {
    de: [
      'gibt es',
      'gibts',
      'bieten sie',
      'haben sie',
      'habt ihr',
      'bietet ihr',
      'macht ihr',
      'kann ich',
      'kann man',
      'können sie',
      'unterstützen sie',
      'ihr',
      'ihre',
      'ihren',
      'ihrer',
      'euer',
      'eure',
    ],
    en: ['do you', 'can i', 'is there', 'are there', 'does it', 'your', 'you support', 'you offer', 'you guys', 'you have', 'with it'],
    fr: [
      'avez vous',
      'proposez vous',
      'offrez vous',
      'faites vous',
      'vous faites',
      'vous avez',
      'vous proposez',
      'chez vous',
      'puis je',
      'je peux',
      'pouvez vous',
      'est ce que vous',
      'y a t il',
      'vos',
      'votre',
    ],
  },
  thanks: {
    de: ['danke', 'vielen dank', 'dankeschön'],
    en: ['thanks', 'thank you', 'cheers'],
    fr: ['merci'],
  },
}
