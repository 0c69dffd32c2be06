import type { Locale } from '../../../src/domain/locales.ts'

/**
 * The evaluation set: questions visitors ask, with what a good answer must contain or which
 * refusal it must give. Amounts are written as tokens ({price:pro}, {yearly:pro},
 * {addon:extra_domain}) and rendered from the price list in the locale's format, so the set
 * follows the price list instead of copying it.
 *
 * - first: facts the first sentence must contain (the answer comes first);
 * - facts: facts the reply must contain anywhere;
 * - action: the one action expected ('none' for no action), href for a navigate action;
 * - refusal: the assistant must say it cannot answer ('not-sure' with a next step, 'off-topic'
 *   without one), quote no amount and cite no source; next: the step it offers.
 * - site: the site the widget runs on (platform: booking, leads and handoff on; plain: nothing;
 *   leads: leads only; handoff: handoff only); url: the page the visitor is on.
 */
export type Topic = 'prices' | 'plans' | 'features' | 'audit' | 'domains' | 'assistant' | 'privacy' | 'booking' | 'buying' | 'handoff' | 'unknown' | 'off-topic'

export interface EvalCase {
  topic: Topic
  q: string
  site?: 'platform' | 'plain' | 'leads' | 'handoff'
  url?: string
  first?: string[]
  facts?: string[]
  action?: 'navigate' | 'open_booking' | 'capture_lead' | 'none'
  href?: string
  handoff?: 'requested'
  refusal?: 'not-sure' | 'off-topic'
  next?: Array<'person' | 'lead' | 'contact'>
}

export const questions: Record<Locale, EvalCase[]> = {
  en: [
    { topic: 'prices', q: 'What does the pro plan cost?', first: ['{price:pro}', '{yearly:pro}'], action: 'navigate', href: '/en/pricing' },
    { topic: 'prices', q: 'How much is the Lite plan per month?', first: ['Lite', '{price:lite}'] },
    { topic: 'prices', q: 'What do your plans cost?', first: ['{price:lite}', '{price:plus}', '{price:pro}', '{price:max}'] },
    { topic: 'prices', q: 'How much does an extra domain cost?', first: ['{addon:extra_domain}'] },
    { topic: 'prices', q: 'What does the AI sales assistant cost?', first: ['{addon:ai_sales_assistant}'], facts: ['Plus'] },
    { topic: 'prices', q: 'Is there a discount if I pay yearly?', facts: ['20%'] },
    { topic: 'plans', q: 'What is the difference between plus and pro?', first: ['{price:plus}', '{price:pro}'], facts: ['three sites', 'ten sites'] },
    { topic: 'plans', q: 'What does Max include?', first: ['unlimited sites'], facts: ['{price:max}'] },
    { topic: 'plans', q: 'How many sites can I have on Plus?', first: ['three sites'] },
    { topic: 'plans', q: 'Which plan do I need for webhooks?', first: ['Pro'] },
    { topic: 'plans', q: 'Can I cancel my plan?', facts: ['cancelled at the end of each month'] },
    { topic: 'plans', q: 'Is there a free trial?', first: ['Free plan'] },
    { topic: 'features', q: 'Which blocks can I put on a page?', facts: ['hero', 'FAQ', 'contact form'] },
    { topic: 'features', q: 'Can I build a multilingual website?', facts: ['German, English and French'] },
    { topic: 'audit', q: 'How does the SEO audit work?', first: ['SEO', 'AEO', 'GEO'], facts: ['quick wins'] },
    { topic: 'audit', q: 'How many pages do premium SEO reports cover?', first: ['50 pages'] },
    { topic: 'domains', q: 'How do I connect my own domain?', first: ['TXT'], facts: ['DNS'] },
    { topic: 'domains', q: 'Do I get an SSL certificate for my domain?', first: ['SSL'], facts: ['automatically'] },
    { topic: 'assistant', q: 'Can the assistant capture leads?', facts: ['consent'] },
    { topic: 'assistant', q: 'Which languages does the chat assistant speak?', first: ['German, English and French'] },
    { topic: 'privacy', q: 'Where is my data stored?', first: ['EU'] },
    { topic: 'privacy', q: 'Can visitors delete their chat?', first: ['erase'] },
    { topic: 'booking', q: 'I would like to book a demo', action: 'open_booking' },
    { topic: 'booking', q: 'How long does a demo take?', first: ['30-minute'] },
    { topic: 'buying', q: 'I want to buy the pro plan', first: ['{price:pro}'], facts: ['sign up'], action: 'navigate', href: '/en/pricing' },
    { topic: 'buying', q: 'I want to sign up for Plus', site: 'leads', first: ['{price:plus}'], action: 'navigate', href: '/en/pricing' },
    { topic: 'buying', q: "I'd like to buy the Max plan", url: '/en/pricing', first: ['{price:max}'], action: 'capture_lead' },
    { topic: 'buying', q: 'Can you send me an offer for the Pro plan?', first: ['{price:pro}'], action: 'capture_lead' },
    { topic: 'buying', q: 'I want to buy the Lite plan', site: 'plain', url: '/en/pricing', first: ['{price:lite}'], action: 'none' },
    { topic: 'handoff', q: 'Can I talk to a person?', handoff: 'requested' },
    { topic: 'handoff', q: 'I want to speak to a human', site: 'plain', action: 'navigate', href: '/en/contact' },
    { topic: 'unknown', q: 'Do you offer a discount for nonprofits?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Do you offer email hosting?', site: 'plain', refusal: 'not-sure', next: ['contact'] },
    { topic: 'unknown', q: 'Can I pay with PayPal?', site: 'leads', refusal: 'not-sure', next: ['lead'] },
    { topic: 'unknown', q: 'Do you integrate with Shopify?', site: 'handoff', refusal: 'not-sure', next: ['person'] },
    { topic: 'off-topic', q: "What's the weather in Paris tomorrow?", refusal: 'off-topic' },
    { topic: 'off-topic', q: 'Who won the football world cup?', refusal: 'off-topic' },
    { topic: 'prices', q: 'Are your prices including VAT?', facts: ['VAT'] },
    { topic: 'plans', q: 'Can I upgrade my plan later?', facts: ['next billing period'] },
    { topic: 'plans', q: 'How many API requests does Pro allow?', facts: ['1,000'] },
    { topic: 'features', q: 'Can I roll back to an earlier version of my site?', facts: ['roll back'] },
    { topic: 'domains', q: 'Can I keep my domain at my current registrar?', facts: ['registrar'] },
    { topic: 'assistant', q: 'How do I add the chat widget to my website?', facts: ['script tag'] },
    { topic: 'buying', q: 'How do I upgrade to Max?', first: ['{price:max}'], action: 'navigate', href: '/en/pricing' },
    { topic: 'unknown', q: 'Do you have a mobile app for iPhone?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Can I migrate my site from Wix?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'off-topic', q: 'Tell me a joke about penguins', refusal: 'off-topic' },
  ],
  de: [
    { topic: 'prices', q: 'Was kostet der Pro-Tarif?', first: ['{price:pro}', '{yearly:pro}'], action: 'navigate', href: '/de/pricing' },
    { topic: 'prices', q: 'Wie viel kostet Lite im Monat?', first: ['Lite', '{price:lite}'] },
    { topic: 'prices', q: 'Was kosten Ihre Tarife?', first: ['{price:lite}', '{price:plus}', '{price:pro}', '{price:max}'] },
    { topic: 'prices', q: 'Was kostet eine zusätzliche Domain?', first: ['Zusätzliche Domain', '{addon:extra_domain}'] },
    { topic: 'prices', q: 'Was kostet der KI-Verkaufsassistent?', first: ['KI-Verkaufsassistent', '{addon:ai_sales_assistant}'], facts: ['Plus'] },
    { topic: 'prices', q: 'Gibt es Rabatt bei jährlicher Zahlung?', facts: ['20\u00a0%'] },
    { topic: 'plans', q: 'Was ist der Unterschied zwischen Plus und Pro?', first: ['{price:plus}', '{price:pro}'], facts: ['drei Websites', 'zehn Websites'] },
    { topic: 'plans', q: 'Was enthält der Tarif Max?', first: ['unbegrenzt viele Websites'], facts: ['{price:max}'] },
    { topic: 'plans', q: 'Wie viele Websites kann ich mit Plus haben?', first: ['drei Websites'] },
    { topic: 'plans', q: 'Welchen Tarif brauche ich für Webhooks?', first: ['Pro'] },
    { topic: 'plans', q: 'Kann ich meinen Tarif kündigen?', facts: ['zum Monatsende kündbar'] },
    { topic: 'plans', q: 'Kann ich das kostenlos testen?', first: ['Free'] },
    { topic: 'features', q: 'Welche Blöcke kann ich auf einer Seite verwenden?', facts: ['Hero', 'FAQ', 'Kontaktformular'] },
    { topic: 'features', q: 'Kann ich eine mehrsprachige Website bauen?', facts: ['Deutsch, Englisch und Französisch'] },
    { topic: 'audit', q: 'Wie funktioniert das SEO-Audit?', first: ['SEO', 'AEO', 'GEO'], facts: ['Quick Wins'] },
    { topic: 'audit', q: 'Wie viele Seiten prüfen die Premium-SEO-Berichte?', first: ['50 Seiten'] },
    { topic: 'domains', q: 'Wie verbinde ich meine eigene Domain?', first: ['TXT'], facts: ['DNS'] },
    { topic: 'domains', q: 'Bekomme ich ein SSL-Zertifikat?', first: ['SSL'], facts: ['automatisch'] },
    { topic: 'assistant', q: 'Kann der Assistent Anfragen aufnehmen?', facts: ['Einwilligung'] },
    { topic: 'assistant', q: 'Welche Sprachen spricht der Assistent?', first: ['Deutsch, Englisch und Französisch'] },
    { topic: 'privacy', q: 'Wo werden meine Daten gespeichert?', first: ['EU'] },
    { topic: 'privacy', q: 'Können Besucher ihren Chat löschen?', first: ['löschen'] },
    { topic: 'booking', q: 'Ich möchte einen Demo-Termin buchen', action: 'open_booking' },
    { topic: 'booking', q: 'Wie lange dauert eine Demo?', first: ['30-minütigen'] },
    { topic: 'buying', q: 'Ich möchte den Pro-Tarif kaufen', first: ['{price:pro}'], facts: ['registrieren'], action: 'navigate', href: '/de/pricing' },
    { topic: 'buying', q: 'Ich will mich für Plus registrieren', site: 'leads', first: ['{price:plus}'], action: 'navigate', href: '/de/pricing' },
    { topic: 'buying', q: 'Ich möchte den Tarif Max bestellen', url: '/de/pricing', first: ['{price:max}'], action: 'capture_lead' },
    { topic: 'buying', q: 'Können Sie mir ein Angebot für Pro schicken?', first: ['{price:pro}'], action: 'capture_lead' },
    { topic: 'buying', q: 'Ich möchte Lite kaufen', site: 'plain', url: '/de/pricing', first: ['{price:lite}'], action: 'none' },
    { topic: 'handoff', q: 'Kann ich mit einem Menschen sprechen?', handoff: 'requested' },
    { topic: 'handoff', q: 'Ich möchte mit einem Mitarbeiter sprechen', site: 'plain', action: 'navigate', href: '/de/contact' },
    { topic: 'unknown', q: 'Gibt es einen Rabatt für gemeinnützige Vereine?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Bieten Sie auch E-Mail-Hosting an?', site: 'plain', refusal: 'not-sure', next: ['contact'] },
    { topic: 'unknown', q: 'Kann ich mit PayPal bezahlen?', site: 'leads', refusal: 'not-sure', next: ['lead'] },
    { topic: 'unknown', q: 'Gibt es eine Schnittstelle zu Shopify?', site: 'handoff', refusal: 'not-sure', next: ['person'] },
    { topic: 'off-topic', q: 'Wie wird das Wetter morgen in Berlin?', refusal: 'off-topic' },
    { topic: 'off-topic', q: 'Wer hat die Fußball-WM gewonnen?', refusal: 'off-topic' },
    { topic: 'prices', q: 'Sind die Preise inklusive Mehrwertsteuer?', facts: ['Mehrwertsteuer'] },
    { topic: 'plans', q: 'Kann ich später in einen höheren Tarif wechseln?', facts: ['nächsten Abrechnungszeitraum'] },
    { topic: 'plans', q: 'Wie viele API-Anfragen erlaubt Pro?', facts: ['1.000'] },
    { topic: 'features', q: 'Kann ich zu einer früheren Version meiner Website zurückgehen?', facts: ['zurückgehen'] },
    { topic: 'domains', q: 'Kann meine Domain bei meinem Registrar bleiben?', facts: ['Registrar'] },
    { topic: 'assistant', q: 'Wie binde ich das Chat-Widget in meine Website ein?', facts: ['Script-Tag'] },
    { topic: 'buying', q: 'Wie wechsle ich zu Max?', first: ['{price:max}'], action: 'navigate', href: '/de/pricing' },
    { topic: 'unknown', q: 'Gibt es eine App fürs iPhone?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Kann ich meine Website von Wix umziehen?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'off-topic', q: 'Erzähl mir einen Witz über Pinguine', refusal: 'off-topic' },
  ],
  fr: [
    { topic: 'prices', q: 'Combien coûte la formule Pro ?', first: ['{price:pro}', '{yearly:pro}'], action: 'navigate', href: '/fr/pricing' },
    { topic: 'prices', q: 'Quel est le prix de Lite par mois ?', first: ['Lite', '{price:lite}'] },
    { topic: 'prices', q: 'Combien coûtent vos formules ?', first: ['{price:lite}', '{price:plus}', '{price:pro}', '{price:max}'] },
    { topic: 'prices', q: 'Combien coûte un domaine supplémentaire ?', first: ['Domaine supplémentaire', '{addon:extra_domain}'] },
    { topic: 'prices', q: "Combien coûte l'assistant commercial IA ?", first: ['Assistant commercial IA', '{addon:ai_sales_assistant}'], facts: ['Plus'] },
    { topic: 'prices', q: 'Y a-t-il une remise en paiement annuel ?', facts: ['20\u202f%'] },
    { topic: 'plans', q: 'Quelle est la différence entre plus et pro ?', first: ['{price:plus}', '{price:pro}'], facts: ['trois sites', 'dix sites'] },
    { topic: 'plans', q: 'Que comprend la formule Max ?', first: ['sites illimités'], facts: ['{price:max}'] },
    { topic: 'plans', q: 'Combien de sites puis-je avoir avec la formule Plus ?', first: ['trois sites'] },
    { topic: 'plans', q: 'Quelle formule faut-il pour les webhooks ?', first: ['Pro'] },
    { topic: 'plans', q: 'Puis-je résilier ma formule ?', facts: ['résiliables en fin de mois'] },
    { topic: 'plans', q: 'Y a-t-il un essai gratuit ?', first: ['Free'] },
    { topic: 'features', q: 'Quels blocs puis-je mettre sur une page ?', facts: ['bandeau', 'FAQ', 'formulaire de contact'] },
    { topic: 'features', q: 'Puis-je créer un site multilingue ?', facts: ['allemand, en anglais et en français'] },
    { topic: 'audit', q: "Comment fonctionne l'audit SEO ?", first: ['SEO', 'AEO', 'GEO'], facts: ['gains rapides'] },
    { topic: 'audit', q: 'Combien de pages couvrent les rapports SEO premium ?', first: ['50 pages'] },
    { topic: 'domains', q: 'Comment connecter mon propre domaine ?', first: ['TXT'], facts: ['DNS'] },
    { topic: 'domains', q: 'Ai-je un certificat SSL ?', first: ['SSL'], facts: ['automatiquement'] },
    { topic: 'assistant', q: "L'assistant peut-il recueillir des contacts ?", facts: ['consentement'] },
    { topic: 'assistant', q: "Quelles langues parle l'assistant ?", first: ['allemand, en anglais et en français'] },
    { topic: 'privacy', q: 'Où sont stockées mes données ?', first: ['UE'] },
    { topic: 'privacy', q: 'Les visiteurs peuvent-ils effacer leur chat ?', first: ['effacer'] },
    { topic: 'booking', q: 'Je voudrais réserver une démo', action: 'open_booking' },
    { topic: 'booking', q: 'Combien de temps dure une démo ?', first: ['30 minutes'] },
    { topic: 'buying', q: 'Je veux acheter la formule pro', first: ['{price:pro}'], facts: ['inscrivez-vous'], action: 'navigate', href: '/fr/pricing' },
    { topic: 'buying', q: "Je voudrais m'inscrire à la formule Plus", site: 'leads', first: ['{price:plus}'], action: 'navigate', href: '/fr/pricing' },
    { topic: 'buying', q: 'Je veux commander la formule Max', url: '/fr/pricing', first: ['{price:max}'], action: 'capture_lead' },
    { topic: 'buying', q: 'Pouvez-vous m’envoyer un devis pour la formule Pro ?', first: ['{price:pro}'], action: 'capture_lead' },
    { topic: 'buying', q: 'Je veux acheter la formule Lite', site: 'plain', url: '/fr/pricing', first: ['{price:lite}'], action: 'none' },
    { topic: 'handoff', q: 'Puis-je parler à une personne ?', handoff: 'requested' },
    { topic: 'handoff', q: 'Je veux parler à un conseiller', site: 'plain', action: 'navigate', href: '/fr/contact' },
    { topic: 'unknown', q: 'Proposez-vous une réduction pour les associations ?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Est-ce que vous proposez un hébergement email ?', site: 'plain', refusal: 'not-sure', next: ['contact'] },
    { topic: 'unknown', q: 'Puis-je payer avec PayPal ?', site: 'leads', refusal: 'not-sure', next: ['lead'] },
    { topic: 'unknown', q: 'Avez-vous une intégration avec Shopify ?', site: 'handoff', refusal: 'not-sure', next: ['person'] },
    { topic: 'off-topic', q: 'Quel temps fera-t-il demain à Paris ?', refusal: 'off-topic' },
    { topic: 'off-topic', q: 'Qui a gagné la Coupe du monde de football ?', refusal: 'off-topic' },
    { topic: 'prices', q: 'Vos prix incluent-ils la TVA ?', facts: ['TVA'] },
    { topic: 'plans', q: 'Puis-je changer de formule plus tard ?', facts: ['période de facturation suivante'] },
    { topic: 'plans', q: "Combien de requêtes d'API permet la formule Pro ?", facts: ['1\u202f000'] },
    { topic: 'features', q: 'Puis-je revenir à une version précédente de mon site ?', facts: ['revenir à une version précédente en un clic'] },
    { topic: 'domains', q: 'Mon domaine peut-il rester chez mon registraire ?', facts: ['registraire'] },
    { topic: 'assistant', q: 'Comment ajouter le widget de chat à mon site ?', facts: ['balise script'] },
    { topic: 'buying', q: 'Comment passer à la formule Max ?', first: ['{price:max}'], action: 'navigate', href: '/fr/pricing' },
    { topic: 'unknown', q: 'Avez-vous une application pour iPhone ?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Puis-je migrer mon site depuis Wix ?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'off-topic', q: 'Raconte-moi une blague sur les pingouins', refusal: 'off-topic' },
  ],
}
