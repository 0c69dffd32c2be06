import type { Locale } from '../../../src/domain/locales.ts'
import type { EvalCase } from './questions.ts'

/**
 * The held-out quarter of the evaluation set: questions written from the price list and the
 * product's public description only, by someone who had not read the knowledge files, and never
 * used to tune the responder. Its score is reported beside the tuned set's; a drop here while
 * the tuned set stays high means the assistant learned phrases instead of generalising.
 * A count is checked without its first letter, so "Ten sites" and "ten sites" both match.
 */
export const heldOut: Record<Locale, EvalCase[]> = {
  en: [
    { topic: 'prices', q: 'how much for pro a month', first: ['{price:pro}'] },
    { topic: 'prices', q: 'whats the cheapest paid plan', facts: ['Lite', '{price:lite}'] },
    { topic: 'prices', q: 'I want the max plan, what will I pay?', first: ['{price:max}'] },
    { topic: 'prices', q: 'what does an additional team member cost', facts: ['{addon:extra_seat}'] },
    { topic: 'prices', q: 'price of the premium seo reports add on?', facts: ['{addon:premium_seo_reports}'] },
    { topic: 'prices', q: 'do I save anything if I pay for the whole year up front', facts: ['20%'] },
    { topic: 'plans', q: 'is there something I can use without paying', facts: ['Free'] },
    { topic: 'plans', q: 'can I write to my sites through your api on the plus plan?', facts: ['Pro'] },
    { topic: 'plans', q: 'which plan do I need to get webhook notifications', first: ['Pro'] },
    { topic: 'plans', q: 'how many websites does the pro plan include', facts: ['en sites'] },
    { topic: 'plans', q: 'can I stop my subscription whenever I want?', facts: ['month'] },
    { topic: 'domains', q: 'which dns record do i have to add for my domian', facts: ['TXT'] },
    { topic: 'domains', q: 'can I use my own domain name on the free plan?', facts: ['Lite'] },
    { topic: 'audit', q: 'what does your seo check look at', facts: ['SEO'] },
    { topic: 'assistant', q: 'how much is the ai chat thing for my site', facts: ['{addon:ai_sales_assistant}'] },
    { topic: 'plans', q: 'how often do I get an seo report with pro', facts: ['week'] },
    { topic: 'unknown', q: 'Do you sell gift cards?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'can i host a minecraft server with you', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'off-topic', q: 'recommend me a good pizza recipe', refusal: 'off-topic' },
    { topic: 'off-topic', q: 'how tall is mount everest', refusal: 'off-topic' },
  ],
  de: [
    { topic: 'prices', q: 'was zahl ich für pro im monat', first: ['{price:pro}'] },
    { topic: 'prices', q: 'Was ist euer günstigster bezahlter Tarif?', facts: ['Lite', '{price:lite}'] },
    { topic: 'prices', q: 'wie teuer ist max', first: ['{price:max}'] },
    { topic: 'prices', q: 'Was kostet ein weiterer Benutzer im Team?', facts: ['{addon:extra_seat}'] },
    { topic: 'prices', q: 'Preis für die Premium SEO Berichte?', facts: ['{addon:premium_seo_reports}'] },
    { topic: 'prices', q: 'Spare ich was wenn ich jährlich zahle', facts: ['20\u00a0%'] },
    { topic: 'plans', q: 'gibts auch was gratis?', facts: ['Free'] },
    { topic: 'plans', q: 'Kann ich mit Plus über die API Inhalte ändern?', facts: ['Pro'] },
    { topic: 'plans', q: 'ab welchem tarif gibt es webhooks', first: ['Pro'] },
    { topic: 'plans', q: 'Wie viele Webseiten sind bei Pro dabei?', facts: ['ehn Websites'] },
    { topic: 'plans', q: 'Bin ich ein Jahr gebunden oder kann ich jederzeit aufhören?', facts: ['Monat'] },
    { topic: 'domains', q: 'welchen DNS eintrag muss ich für meine domain setzen', facts: ['TXT'] },
    { topic: 'domains', q: 'Geht eine eigene Domain auch im kostenlosen Tarif?', facts: ['Lite'] },
    { topic: 'audit', q: 'Was prüft euer SEO Audit eigentlich?', facts: ['SEO'] },
    { topic: 'assistant', q: 'was kostet der KI chat für meine seite', facts: ['{addon:ai_sales_assistant}'] },
    { topic: 'plans', q: 'Wie oft bekomme ich bei Pro einen SEO-Bericht?', facts: ['wöchentlich'] },
    { topic: 'unknown', q: 'Verkauft ihr Gutscheine?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Kann ich bei euch einen Minecraft-Server betreiben?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'off-topic', q: 'Hast du ein gutes Rezept für Pizza?', refusal: 'off-topic' },
    { topic: 'off-topic', q: 'Wie hoch ist die Zugspitze?', refusal: 'off-topic' },
  ],
  fr: [
    { topic: 'prices', q: 'combien pour pro par mois', first: ['{price:pro}'] },
    { topic: 'prices', q: 'Quelle est votre formule payante la moins chère ?', facts: ['Lite', '{price:lite}'] },
    { topic: 'prices', q: 'max ça coûte combien', first: ['{price:max}'] },
    { topic: 'prices', q: "Combien coûte un membre d'équipe en plus ?", facts: ['{addon:extra_seat}'] },
    { topic: 'prices', q: 'prix des rapports SEO premium ?', facts: ['{addon:premium_seo_reports}'] },
    { topic: 'prices', q: "Est-ce que je gagne quelque chose en payant à l'année ?", facts: ['20\u202f%'] },
    { topic: 'plans', q: 'Vous avez une offre gratuite ?', facts: ['Free'] },
    { topic: 'plans', q: "Avec Plus, je peux modifier mes sites par l'API ?", facts: ['Pro'] },
    { topic: 'plans', q: 'quelle formule pour avoir les webhooks', first: ['Pro'] },
    { topic: 'plans', q: 'Combien de sites avec la formule Pro ?', facts: ['ix sites'] },
    { topic: 'plans', q: 'Je suis engagé pour un an ou je peux arrêter quand je veux ?', facts: ['mois'] },
    { topic: 'domains', q: 'quel enregistrement dns faut il ajouter pour mon domaine', facts: ['TXT'] },
    { topic: 'domains', q: 'Je peux avoir mon propre nom de domaine avec la formule gratuite ?', facts: ['Lite'] },
    { topic: 'audit', q: "Qu'est-ce que votre audit SEO vérifie exactement ?", facts: ['SEO'] },
    { topic: 'assistant', q: 'combien coûte le chat IA pour mon site', facts: ['{addon:ai_sales_assistant}'] },
    { topic: 'plans', q: 'À quelle fréquence je reçois un rapport SEO avec Pro ?', facts: ['hebdomadaire'] },
    { topic: 'unknown', q: 'Vous vendez des cartes cadeaux ?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'unknown', q: 'Puis-je héberger un serveur Minecraft chez vous ?', refusal: 'not-sure', next: ['person', 'lead'] },
    { topic: 'off-topic', q: 'Donne-moi une bonne recette de crêpes', refusal: 'off-topic' },
    { topic: 'off-topic', q: 'Quelle est la hauteur de la tour Eiffel ?', refusal: 'off-topic' },
  ],
}
