import type { Locale } from '../../domain/locales.ts'
import { CONTACT_HEADING } from '../../domain/sites/page-markdown.ts'

/** The few words a page says on its own (navigation, form labels), per locale. */
export interface Labels {
  language: string
  skip: string
  mainNav: string
  languages: string
  legal: string
  home: string
  name: string
  email: string
  message: string
  send: string
  contact: string
  notFoundTitle: string
  notFoundText: string
  backHome: string
  thanksTitle: string
  thanksText: string
  back: string
}

export const LABELS: Record<Locale, Labels> = {
  en: {
    language: 'English',
    skip: 'Skip to content',
    mainNav: 'Main',
    languages: 'Languages',
    legal: 'Legal',
    home: 'Home',
    name: 'Name',
    email: 'Email',
    message: 'Message',
    send: 'Send',
    contact: CONTACT_HEADING.en,
    notFoundTitle: 'Page not found',
    notFoundText: 'The page you asked for does not exist or has moved.',
    backHome: 'Back to the home page',
    thanksTitle: 'Thank you',
    thanksText: 'Your message has been sent. We will get back to you soon.',
    back: 'Back to the page',
  },
  de: {
    language: 'Deutsch',
    skip: 'Zum Inhalt springen',
    mainNav: 'Hauptnavigation',
    languages: 'Sprachen',
    legal: 'Rechtliches',
    home: 'Startseite',
    name: 'Name',
    email: 'E-Mail',
    message: 'Nachricht',
    send: 'Senden',
    contact: CONTACT_HEADING.de,
    notFoundTitle: 'Seite nicht gefunden',
    notFoundText: 'Die angefragte Seite gibt es nicht oder sie ist umgezogen.',
    backHome: 'Zur Startseite',
    thanksTitle: 'Vielen Dank',
    thanksText: 'Ihre Nachricht wurde gesendet. Wir melden uns bald bei Ihnen.',
    back: 'Zurück zur Seite',
  },
  fr: {
    language: 'Français',
    skip: 'Aller au contenu',
    mainNav: 'Navigation principale',
    languages: 'Langues',
    legal: 'Informations légales',
    home: 'Accueil',
    name: 'Nom',
    email: 'E-mail',
    message: 'Message',
    send: 'Envoyer',
    contact: CONTACT_HEADING.fr,
    notFoundTitle: 'Page introuvable',
    notFoundText: "La page demandée n'existe pas ou a été déplacée.",
    backHome: "Retour à l'accueil",
    thanksTitle: 'Merci',
    thanksText: 'Votre message a été envoyé. Nous vous répondrons bientôt.',
    back: 'Retour à la page',
  },
}
