import type { Locale } from '../sites/tables.ts'
import type { AgentSuggestion } from './schemas.ts'

/** Fixed wording of the assistant per locale; the knowledge base supplies everything factual. */
export const phrases = {
  openerNamed: {
    de: (persona: string, site: string) => `Hallo, ich bin ${persona}, der digitale Assistent von ${site}. Fragen Sie mich gern nach Tarifen, Funktionen oder einem Demo-Termin.`,
    en: (persona: string, site: string) => `Hi, I'm ${persona}, the digital assistant of ${site}. Ask me about plans, features or booking a demo.`,
    fr: (persona: string, site: string) => `Bonjour, je suis ${persona}, l'assistant numérique de ${site}. Posez-moi vos questions sur les formules, les fonctions ou une démo.`,
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
  noAnswer: {
    de: 'Dazu habe ich leider keine gesicherte Information. Ich kann Fragen zu Tarifen und Preisen, Funktionen, dem SEO-Audit, Domains, dem KI-Assistenten und Demo-Terminen beantworten.',
    en: "I don't have reliable information on that. I can answer questions about plans and prices, features, the SEO audit, domains, the AI assistant and booking a demo.",
    fr: "Je n'ai pas d'information fiable à ce sujet. Je peux répondre aux questions sur les formules et les prix, les fonctions, l'audit SEO, les domaines, l'assistant IA et les démos.",
  },
  handoffRequested: {
    de: 'Gern verbinde ich Sie mit einem Menschen aus dem Team. Jemand übernimmt hier im Chat, sobald er verfügbar ist.',
    en: "I'll connect you with a person from the team. Someone will join this chat as soon as they are available.",
    fr: "Je vous mets en relation avec une personne de l'équipe. Quelqu'un rejoindra ce chat dès que possible.",
  },
  handoffPending: {
    de: 'Ihre Anfrage an das Team ist schon unterwegs; bis dahin helfe ich gern weiter.',
    en: 'Your request for a person is already on its way; until then I am happy to help.',
    fr: "Votre demande de mise en relation est déjà transmise ; en attendant, je reste à votre disposition.",
  },
  handoffUnavailable: {
    de: 'Ein direktes Gespräch mit dem Team ist hier im Chat leider nicht möglich. Hinterlassen Sie gern Ihre Kontaktdaten, dann meldet sich jemand bei Ihnen.',
    en: "A live conversation with the team isn't available in this chat. Leave your contact details and someone will get back to you.",
    fr: "Une conversation en direct avec l'équipe n'est pas disponible dans ce chat. Laissez vos coordonnées et quelqu'un vous recontactera.",
  },
  handoffActive: {
    de: 'Ein Mitarbeiter betreut dieses Gespräch und antwortet Ihnen hier.',
    en: 'A team member is handling this conversation and will answer you here.',
    fr: "Un membre de l'équipe s'occupe de cette conversation et vous répondra ici.",
  },
  leadInvite: {
    de: 'Wenn Sie möchten, hinterlassen Sie Ihre E-Mail-Adresse und wir melden uns mit einem passenden Angebot.',
    en: "If you like, leave your email address and we'll get back to you with a fitting offer.",
    fr: "Si vous le souhaitez, laissez votre adresse e-mail et nous reviendrons vers vous avec une offre adaptée.",
  },
  bookingInvite: {
    de: 'Einen Termin können Sie direkt im Kalender buchen.',
    en: 'You can book a time directly in the calendar.',
    fr: 'Vous pouvez réserver un créneau directement dans le calendrier.',
  },
} as const

export const openerSuggestions: Record<Locale, { pricing: AgentSuggestion; demo: AgentSuggestion; features: AgentSuggestion }> = {
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

/** Phrases that show an intent, matched as whole words on the lower-cased message. */
export const intents: Record<'handoff' | 'booking' | 'buying' | 'greeting', Record<Locale, readonly string[]>> = {
  handoff: {
    de: ['mensch', 'menschen', 'mitarbeiter', 'mitarbeiterin', 'echte person', 'einer person', 'berater', 'beraterin', 'jemanden sprechen', 'ansprechpartner', 'verkäufer'],
    en: ['human', 'a person', 'real person', 'someone', 'agent', 'operator', 'representative', 'salesperson', 'sales team', 'staff member', 'team member'],
    fr: ['humain', 'une personne', 'vraie personne', 'conseiller', 'conseillère', 'quelqu un', 'opérateur', 'commercial', 'agent'],
  },
  booking: {
    de: ['demo', 'termin', 'vorführung', 'rückruf', 'beratungstermin', 'onboarding'],
    en: ['demo', 'appointment', 'book a call', 'schedule', 'meeting', 'onboarding'],
    fr: ['démo', 'demo', 'rendez vous', 'démonstration', 'rappel', 'accompagnement'],
  },
  buying: {
    de: ['kaufen', 'bestellen', 'buchen', 'abschließen', 'angebot', 'registrieren', 'anmelden', 'loslegen', 'upgrade', 'interesse'],
    en: ['buy', 'purchase', 'order', 'sign up', 'subscribe', 'quote', 'offer', 'get started', 'upgrade', 'interested', 'pricing for my'],
    fr: ['acheter', 'commander', 'souscrire', 'abonner', 'devis', 'offre', 'inscrire', 'commencer', 'intéressé', 'intéressée'],
  },
  greeting: {
    de: ['hallo', 'hi', 'guten tag', 'moin', 'servus', 'hey'],
    en: ['hello', 'hi', 'hey', 'good morning', 'good afternoon'],
    fr: ['bonjour', 'salut', 'bonsoir', 'coucou'],
  },
}
