import type { Locale } from '../../locales.ts'

/**
 * The words of the templates (DESIGN.md 15), per business type and language, written to read well
 * as they are and to say what to replace. `{name}`, `{in_city}` (" in Lyon", or nothing) and
 * `{description}` are filled from the business's facts; nothing here states a fact about a real
 * business (no price, no address, no number): those come only from the owner.
 */

export const BUSINESS_TYPES = ['bakery', 'restaurant', 'salon', 'trades', 'consultant', 'shop', 'health', 'club'] as const
export type BusinessType = (typeof BUSINESS_TYPES)[number]

export interface TypeWords {
  /** The template's name in the catalogue. */
  name: string
  description: string
  /** The home page's heading. */
  tagline: string
  /** Under the heading when the owner said nothing about the business. */
  intro: string
  /** The page of what the business offers: its title, and the heading of its list. */
  offerTitle: string
  offerHeading: string
  /** Three examples of what is offered, to replace with the owner's own. */
  offers: Array<{ name: string; text: string }>
  /** The about page's text, in Markdown. */
  about: string
  faq: Array<{ question: string; answer: string }>
}

export interface SharedWords {
  aboutTitle: string
  contactTitle: string
  legalTitle: string
  contactCta: string
  offerCta: string
  /** A sentence after the offers: what to replace. */
  replaceOffers: string
  contactIntro: string
  contactHeading: string
  hoursHeading: string
  faqHeading: string
  /** The legal page in Markdown, from the facts; `{contact}` is the contact lines. */
  legal: string
  /** Said where a fact the legal page needs is missing. */
  fillIn: string
  inCity: (city: string) => string
}

export const SHARED: Record<Locale, SharedWords> = {
  en: {
    aboutTitle: 'About us',
    contactTitle: 'Contact',
    legalTitle: 'Legal notice',
    contactCta: 'Get in touch',
    offerCta: 'See what we offer',
    replaceOffers: 'These are examples: replace them with what you offer, with your own words and prices.',
    contactIntro: 'Call, write or drop by: we look forward to hearing from you.',
    contactHeading: 'Send us a message',
    hoursHeading: 'Opening hours',
    faqHeading: 'Questions we are often asked',
    legal:
      '## Who runs this site\n\n{name}\n\n{contact}\n\n## Responsible for the content\n\n{name}\n\nAdd your company register entry and VAT number here if you have them.',
    fillIn: 'Add your postal address here.',
    inCity: (city) => ` in ${city}`,
  },
  de: {
    aboutTitle: 'Über uns',
    contactTitle: 'Kontakt',
    legalTitle: 'Impressum',
    contactCta: 'Kontakt aufnehmen',
    offerCta: 'Unser Angebot',
    replaceOffers: 'Das sind Beispiele: Ersetzen Sie sie durch Ihr eigenes Angebot, mit Ihren Worten und Preisen.',
    contactIntro: 'Rufen Sie an, schreiben Sie uns oder kommen Sie vorbei: Wir freuen uns auf Sie.',
    contactHeading: 'Schreiben Sie uns',
    hoursHeading: 'Öffnungszeiten',
    faqHeading: 'Häufige Fragen',
    legal:
      '## Angaben gemäß § 5 DDG\n\n{name}\n\n{contact}\n\n## Verantwortlich für den Inhalt\n\n{name}\n\nTragen Sie hier Ihren Registereintrag (Registergericht und -nummer) und Ihre Umsatzsteuer-Identifikationsnummer ein, sofern vorhanden.',
    fillIn: 'Tragen Sie hier Ihre Anschrift ein.',
    inCity: (city) => ` in ${city}`,
  },
  fr: {
    aboutTitle: 'À propos',
    contactTitle: 'Contact',
    legalTitle: 'Mentions légales',
    contactCta: 'Nous contacter',
    offerCta: 'Découvrir notre offre',
    replaceOffers: 'Ce sont des exemples : remplacez-les par ce que vous proposez, avec vos mots et vos prix.',
    contactIntro: 'Appelez-nous, écrivez-nous ou passez nous voir : nous serons ravis de vous répondre.',
    contactHeading: 'Écrivez-nous',
    hoursHeading: 'Horaires d’ouverture',
    faqHeading: 'Questions fréquentes',
    legal:
      '## Éditeur du site\n\n{name}\n\n{contact}\n\n## Directeur de la publication\n\n{name}\n\nAjoutez ici votre numéro SIRET ou RCS et votre numéro de TVA intracommunautaire, le cas échéant.',
    fillIn: 'Ajoutez ici votre adresse postale.',
    inCity: (city) => ` à ${city}`,
  },
}

const w = (
  name: string,
  description: string,
  tagline: string,
  intro: string,
  offerTitle: string,
  offerHeading: string,
  offers: Array<[string, string]>,
  about: string,
  faq: Array<[string, string]>,
): TypeWords => ({
  name,
  description,
  tagline,
  intro,
  offerTitle,
  offerHeading,
  offers: offers.map(([n, text]) => ({ name: n, text })),
  about,
  faq: faq.map(([question, answer]) => ({ question, answer })),
})

export const WORDS: Record<BusinessType, Record<Locale, TypeWords>> = {
  bakery: {
    en: w(
      'Bakery or café',
      'Warm colours, a menu of breads and cakes, opening hours up front.',
      'Baked fresh every morning{in_city}',
      'Bread, pastries and cakes from our own oven, and a good coffee to go with them.',
      'Menu',
      'From our oven',
      [
        ['Sourdough loaf', 'Replace with your bread: what goes in it and how long it rises.'],
        ['Butter croissant', 'Replace with a pastry your customers come back for.'],
        ['Cake of the day', 'Replace with your cakes, or say that they change with the seasons.'],
      ],
      '{name} bakes{in_city} every day. Tell your visitors here how it started, who stands at the oven and what makes your bread yours.\n\nReplace this text with your own story: a few honest sentences are enough.',
      [
        ['Can I order a cake for a celebration?', 'Say here whether you take orders, how early to ask and how to reach you.'],
        ['Do you have gluten-free or vegan products?', 'Say here what you offer for special diets, or that you do not.'],
      ],
    ),
    de: w(
      'Bäckerei oder Café',
      'Warme Farben, eine Karte für Brot und Kuchen, die Öffnungszeiten gleich vorn.',
      'Jeden Morgen frisch gebacken{in_city}',
      'Brot, Gebäck und Kuchen aus dem eigenen Ofen, und ein guter Kaffee dazu.',
      'Angebot',
      'Aus unserem Ofen',
      [
        ['Sauerteigbrot', 'Ersetzen Sie dies durch Ihr Brot: was hineinkommt und wie lange der Teig ruht.'],
        ['Buttercroissant', 'Ersetzen Sie dies durch ein Gebäck, für das Ihre Kundschaft wiederkommt.'],
        ['Kuchen des Tages', 'Ersetzen Sie dies durch Ihre Kuchen, oder sagen Sie, dass sie mit der Jahreszeit wechseln.'],
      ],
      '{name} backt{in_city} jeden Tag. Erzählen Sie hier, wie alles anfing, wer am Ofen steht und was Ihr Brot besonders macht.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte: ein paar ehrliche Sätze genügen.',
      [
        [
          'Kann ich eine Torte für ein Fest bestellen?',
          'Sagen Sie hier, ob Sie Bestellungen annehmen, wie früh man fragen sollte und wie man Sie erreicht.',
        ],
        [
          'Gibt es glutenfreie oder vegane Produkte?',
          'Sagen Sie hier, was Sie für besondere Ernährung anbieten, oder dass Sie es nicht tun.',
        ],
      ],
    ),
    fr: w(
      'Boulangerie ou café',
      'Des couleurs chaleureuses, une carte de pains et gâteaux, les horaires en évidence.',
      'Cuit chaque matin{in_city}',
      'Pains, viennoiseries et gâteaux sortis de notre four, et un bon café pour les accompagner.',
      'Carte',
      'Sortis de notre four',
      [
        ['Pain au levain', 'Remplacez par votre pain : ce qu’il contient et combien de temps il lève.'],
        ['Croissant au beurre', 'Remplacez par la viennoiserie pour laquelle vos clients reviennent.'],
        ['Gâteau du jour', 'Remplacez par vos gâteaux, ou dites qu’ils changent avec les saisons.'],
      ],
      '{name} fait son pain chaque jour{in_city}. Racontez ici comment tout a commencé, qui est au fournil et ce qui rend votre pain unique.\n\nRemplacez ce texte par votre histoire : quelques phrases sincères suffisent.',
      [
        [
          'Puis-je commander un gâteau pour une fête ?',
          'Dites ici si vous prenez les commandes, combien de temps à l’avance et comment vous joindre.',
        ],
        [
          'Avez-vous des produits sans gluten ou végans ?',
          'Dites ici ce que vous proposez pour les régimes particuliers, ou que vous n’en proposez pas.',
        ],
      ],
    ),
  },
  restaurant: {
    en: w(
      'Restaurant',
      'A menu with sections, a booking button, a deep red and an elegant serif.',
      'Good food and a warm welcome{in_city}',
      'Seasonal cooking, a table for you and time to enjoy it.',
      'Menu',
      'On our menu',
      [
        ['Starter of the season', 'Replace with your starters and what goes into them.'],
        ['Dish of the house', 'Replace with the main course your guests remember.'],
        ['Dessert', 'Replace with your desserts.'],
      ],
      '{name} cooks{in_city}. Tell your guests here who is in the kitchen, where your produce comes from and what kind of evening awaits them.\n\nReplace this text with your own story.',
      [
        ['Should I book a table?', 'Say here whether you take bookings, and how: by phone, by email or online.'],
        ['Do you cater for allergies?', 'Say here how guests can tell you about allergies and what you can offer.'],
      ],
    ),
    de: w(
      'Restaurant',
      'Eine Speisekarte mit Abschnitten, ein Reservierungsknopf, tiefes Rot und eine elegante Serifenschrift.',
      'Gutes Essen und herzliche Gastfreundschaft{in_city}',
      'Saisonale Küche, ein Tisch für Sie und Zeit zum Genießen.',
      'Speisekarte',
      'Auf unserer Karte',
      [
        ['Vorspeise der Saison', 'Ersetzen Sie dies durch Ihre Vorspeisen und ihre Zutaten.'],
        ['Gericht des Hauses', 'Ersetzen Sie dies durch das Hauptgericht, an das sich Ihre Gäste erinnern.'],
        ['Dessert', 'Ersetzen Sie dies durch Ihre Desserts.'],
      ],
      '{name} kocht{in_city}. Erzählen Sie Ihren Gästen hier, wer in der Küche steht, woher Ihre Zutaten kommen und was sie bei Ihnen erwartet.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte.',
      [
        ['Sollte ich einen Tisch reservieren?', 'Sagen Sie hier, ob und wie man reserviert: per Telefon, E-Mail oder online.'],
        ['Gehen Sie auf Allergien ein?', 'Sagen Sie hier, wie Gäste Ihnen Allergien mitteilen und was Sie anbieten können.'],
      ],
    ),
    fr: w(
      'Restaurant',
      'Une carte par rubriques, un bouton de réservation, un rouge profond et une élégante typographie à empattements.',
      'Une bonne table et un accueil chaleureux{in_city}',
      'Une cuisine de saison, une table pour vous et le temps de l’apprécier.',
      'Carte',
      'À notre carte',
      [
        ['Entrée de saison', 'Remplacez par vos entrées et ce qui les compose.'],
        ['Plat de la maison', 'Remplacez par le plat dont vos clients se souviennent.'],
        ['Dessert', 'Remplacez par vos desserts.'],
      ],
      '{name} cuisine{in_city}. Dites ici à vos clients qui est en cuisine, d’où viennent vos produits et quelle soirée les attend.\n\nRemplacez ce texte par votre histoire.',
      [
        ['Faut-il réserver ?', 'Dites ici si vous prenez les réservations, et comment : par téléphone, par e-mail ou en ligne.'],
        [
          'Tenez-vous compte des allergies ?',
          'Dites ici comment vos clients peuvent vous signaler une allergie et ce que vous pouvez proposer.',
        ],
      ],
    ),
  },
  salon: {
    en: w(
      'Hair and beauty',
      'Soft colours, a list of services, a booking button.',
      'Time for you{in_city}',
      'Cuts, colour and care in a calm salon, by people who listen.',
      'Services',
      'Our services',
      [
        ['Cut and style', 'Replace with your cuts, for whom and how long they take.'],
        ['Colour', 'Replace with your colour services.'],
        ['Care', 'Replace with your treatments.'],
      ],
      '{name} welcomes you{in_city}. Tell your clients here who you are, what you trained in and what they can expect from a visit.\n\nReplace this text with your own story.',
      [
        ['How do I book an appointment?', 'Say here how to book: by phone, by email or online.'],
        ['Which products do you use?', 'Say here which products you work with and why.'],
      ],
    ),
    de: w(
      'Friseur und Kosmetik',
      'Sanfte Farben, eine Liste der Leistungen, ein Knopf zum Termin.',
      'Zeit für Sie{in_city}',
      'Schnitt, Farbe und Pflege in einem ruhigen Salon, bei Menschen, die zuhören.',
      'Leistungen',
      'Unsere Leistungen',
      [
        ['Schneiden und Föhnen', 'Ersetzen Sie dies durch Ihre Schnitte, für wen und wie lange sie dauern.'],
        ['Farbe', 'Ersetzen Sie dies durch Ihre Farbbehandlungen.'],
        ['Pflege', 'Ersetzen Sie dies durch Ihre Behandlungen.'],
      ],
      '{name} empfängt Sie{in_city}. Erzählen Sie hier, wer Sie sind, was Sie gelernt haben und was Ihre Kundschaft bei einem Besuch erwartet.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte.',
      [
        ['Wie bekomme ich einen Termin?', 'Sagen Sie hier, wie man einen Termin bucht: per Telefon, E-Mail oder online.'],
        ['Welche Produkte verwenden Sie?', 'Sagen Sie hier, mit welchen Produkten Sie arbeiten und warum.'],
      ],
    ),
    fr: w(
      'Coiffure et beauté',
      'Des couleurs douces, une liste de prestations, un bouton de rendez-vous.',
      'Du temps pour vous{in_city}',
      'Coupe, couleur et soins dans un salon calme, par une équipe à l’écoute.',
      'Prestations',
      'Nos prestations',
      [
        ['Coupe et coiffage', 'Remplacez par vos coupes, pour qui et leur durée.'],
        ['Couleur', 'Remplacez par vos prestations de couleur.'],
        ['Soins', 'Remplacez par vos soins.'],
      ],
      '{name} vous accueille{in_city}. Dites ici qui vous êtes, votre formation et ce que vos clients peuvent attendre d’une visite.\n\nRemplacez ce texte par votre histoire.',
      [
        ['Comment prendre rendez-vous ?', 'Dites ici comment réserver : par téléphone, par e-mail ou en ligne.'],
        ['Quels produits utilisez-vous ?', 'Dites ici avec quels produits vous travaillez et pourquoi.'],
      ],
    ),
  },
  trades: {
    en: w(
      'Trades and crafts',
      'Strong contrast, services with a call button, the area you cover.',
      'Reliable work, done properly{in_city}',
      'Repairs, installations and renovations by people who turn up when they say.',
      'Services',
      'What we do',
      [
        ['Repairs', 'Replace with the repairs you take on.'],
        ['Installation', 'Replace with what you install and for whom.'],
        ['Renovation', 'Replace with your larger jobs.'],
      ],
      '{name} works{in_city} and around. Tell your customers here how long you have been in the trade, what you are qualified for and which area you cover.\n\nReplace this text with your own story.',
      [
        ['Do you give quotes?', 'Say here whether quotes are free and how soon you send them.'],
        ['Which area do you cover?', 'Say here where you work and whether you charge for travel.'],
      ],
    ),
    de: w(
      'Handwerk',
      'Kräftiger Kontrast, Leistungen mit Anrufknopf, Ihr Einzugsgebiet.',
      'Zuverlässige Arbeit, sauber erledigt{in_city}',
      'Reparaturen, Einbau und Renovierung von Leuten, die kommen, wenn sie es sagen.',
      'Leistungen',
      'Was wir machen',
      [
        ['Reparaturen', 'Ersetzen Sie dies durch die Reparaturen, die Sie übernehmen.'],
        ['Einbau', 'Ersetzen Sie dies durch das, was Sie einbauen, und für wen.'],
        ['Renovierung', 'Ersetzen Sie dies durch Ihre größeren Aufträge.'],
      ],
      '{name} arbeitet{in_city} und Umgebung. Erzählen Sie hier, wie lange Sie im Handwerk sind, wofür Sie qualifiziert sind und welches Gebiet Sie abdecken.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte.',
      [
        ['Erstellen Sie Angebote?', 'Sagen Sie hier, ob Angebote kostenlos sind und wie schnell Sie sie senden.'],
        ['In welchem Gebiet arbeiten Sie?', 'Sagen Sie hier, wo Sie arbeiten und ob Sie Anfahrt berechnen.'],
      ],
    ),
    fr: w(
      'Artisanat et bâtiment',
      'Un contraste franc, des prestations avec bouton d’appel, votre zone d’intervention.',
      'Un travail fiable et soigné{in_city}',
      'Dépannage, installation et rénovation par des artisans qui viennent quand ils le disent.',
      'Prestations',
      'Ce que nous faisons',
      [
        ['Dépannage', 'Remplacez par les réparations que vous assurez.'],
        ['Installation', 'Remplacez par ce que vous installez et pour qui.'],
        ['Rénovation', 'Remplacez par vos chantiers plus importants.'],
      ],
      '{name} intervient{in_city} et alentours. Dites ici depuis quand vous exercez, vos qualifications et votre zone d’intervention.\n\nRemplacez ce texte par votre histoire.',
      [
        ['Faites-vous des devis ?', 'Dites ici si vos devis sont gratuits et sous quel délai vous les envoyez.'],
        ['Dans quelle zone intervenez-vous ?', 'Dites ici où vous travaillez et si le déplacement est facturé.'],
      ],
    ),
  },
  consultant: {
    en: w(
      'Consultant or coach',
      'Calm and clear: what you help with, how you work, a first conversation.',
      'Clear advice when it matters{in_city}',
      'Independent advice and coaching, in person or online.',
      'Services',
      'How I can help',
      [
        ['First conversation', 'Replace with how a first meeting works and what it costs, if anything.'],
        ['Advice', 'Replace with the questions you help with.'],
        ['Coaching', 'Replace with how you accompany your clients over time.'],
      ],
      '{name} advises clients{in_city}. Tell your visitors here about your experience, your qualifications and the way you work.\n\nReplace this text with your own story.',
      [
        ['Do you work online?', 'Say here whether you meet in person, online or both.'],
        ['How long does it take?', 'Say here how long a typical engagement lasts.'],
      ],
    ),
    de: w(
      'Beratung oder Coaching',
      'Ruhig und klar: wobei Sie helfen, wie Sie arbeiten, ein erstes Gespräch.',
      'Klarer Rat, wenn es darauf ankommt{in_city}',
      'Unabhängige Beratung und Coaching, vor Ort oder online.',
      'Leistungen',
      'Wobei ich helfe',
      [
        ['Erstgespräch', 'Ersetzen Sie dies durch den Ablauf eines ersten Treffens und was es kostet, falls etwas.'],
        ['Beratung', 'Ersetzen Sie dies durch die Fragen, bei denen Sie helfen.'],
        ['Coaching', 'Ersetzen Sie dies durch die Art, wie Sie Ihre Kundschaft begleiten.'],
      ],
      '{name} berät{in_city}. Erzählen Sie hier von Ihrer Erfahrung, Ihren Qualifikationen und Ihrer Arbeitsweise.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte.',
      [
        ['Arbeiten Sie auch online?', 'Sagen Sie hier, ob Sie vor Ort, online oder beides anbieten.'],
        ['Wie lange dauert eine Begleitung?', 'Sagen Sie hier, wie lange eine typische Zusammenarbeit dauert.'],
      ],
    ),
    fr: w(
      'Conseil ou coaching',
      'Calme et clair : ce que vous proposez, votre méthode, un premier échange.',
      'Un conseil clair quand il compte{in_city}',
      'Conseil et accompagnement indépendants, en personne ou en ligne.',
      'Prestations',
      'Comment je peux vous aider',
      [
        ['Premier échange', 'Remplacez par le déroulement d’un premier rendez-vous et son prix éventuel.'],
        ['Conseil', 'Remplacez par les questions sur lesquelles vous intervenez.'],
        ['Coaching', 'Remplacez par la façon dont vous accompagnez vos clients dans la durée.'],
      ],
      '{name} conseille ses clients{in_city}. Parlez ici de votre expérience, de vos qualifications et de votre méthode.\n\nRemplacez ce texte par votre histoire.',
      [
        ['Travaillez-vous en ligne ?', 'Dites ici si vous recevez en personne, en ligne ou les deux.'],
        ['Combien de temps dure un accompagnement ?', 'Dites ici la durée habituelle d’un accompagnement.'],
      ],
    ),
  },
  shop: {
    en: w(
      'Local shop',
      'Bright and simple: what you sell, opening hours, how to find you.',
      'Your local shop{in_city}',
      'A hand-picked range, friendly advice and a short way home.',
      'Products',
      'In our shop',
      [
        ['Our range', 'Replace with what you sell.'],
        ['Favourites', 'Replace with the products your customers ask for most.'],
        ['Orders', 'Replace with whether you order items in or put them aside.'],
      ],
      '{name} is a shop{in_city}. Tell your customers here who runs it, since when, and what you care about.\n\nReplace this text with your own story.',
      [
        ['Can I order by phone?', 'Say here whether customers can order by phone or email and collect later.'],
        ['Do you deliver?', 'Say here whether you deliver, where and how.'],
      ],
    ),
    de: w(
      'Laden',
      'Hell und schlicht: was Sie verkaufen, Öffnungszeiten, der Weg zu Ihnen.',
      'Ihr Laden um die Ecke{in_city}',
      'Ein ausgesuchtes Sortiment, freundliche Beratung und kurze Wege.',
      'Sortiment',
      'In unserem Laden',
      [
        ['Unser Sortiment', 'Ersetzen Sie dies durch das, was Sie verkaufen.'],
        ['Beliebt', 'Ersetzen Sie dies durch die Produkte, nach denen am meisten gefragt wird.'],
        ['Bestellungen', 'Ersetzen Sie dies durch die Angabe, ob Sie Waren bestellen oder zurücklegen.'],
      ],
      '{name} ist ein Laden{in_city}. Erzählen Sie hier, wer ihn führt, seit wann und was Ihnen wichtig ist.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte.',
      [
        ['Kann ich telefonisch bestellen?', 'Sagen Sie hier, ob man per Telefon oder E-Mail bestellen und später abholen kann.'],
        ['Liefern Sie auch?', 'Sagen Sie hier, ob, wohin und wie Sie liefern.'],
      ],
    ),
    fr: w(
      'Commerce de proximité',
      'Clair et simple : ce que vous vendez, les horaires, comment venir.',
      'Votre commerce de proximité{in_city}',
      'Une sélection choisie avec soin, des conseils aimables et tout près de chez vous.',
      'Produits',
      'Dans notre boutique',
      [
        ['Notre sélection', 'Remplacez par ce que vous vendez.'],
        ['Coups de cœur', 'Remplacez par les produits les plus demandés.'],
        ['Commandes', 'Remplacez par les articles que vous commandez ou mettez de côté.'],
      ],
      '{name} est une boutique{in_city}. Dites ici qui la tient, depuis quand et ce qui vous tient à cœur.\n\nRemplacez ce texte par votre histoire.',
      [
        ['Puis-je commander par téléphone ?', 'Dites ici si l’on peut commander par téléphone ou par e-mail et retirer plus tard.'],
        ['Livrez-vous ?', 'Dites ici si vous livrez, où et comment.'],
      ],
    ),
  },
  health: {
    en: w(
      'Health practice',
      'Calm and trustworthy: treatments, appointments, how to reach the practice.',
      'Care you can trust{in_city}',
      'Treatment with time for your questions, in a calm practice.',
      'Treatments',
      'Our treatments',
      [
        ['Consultation', 'Replace with how a first appointment works.'],
        ['Treatment', 'Replace with the treatments you offer.'],
        ['Prevention', 'Replace with your preventive care, if you offer it.'],
      ],
      '{name} is a practice{in_city}. Tell your patients here who treats them, your qualifications and what to bring to a first visit.\n\nReplace this text with your own words.',
      [
        ['How do I get an appointment?', 'Say here how patients book: by phone, by email or online.'],
        ['What should I bring?', 'Say here what patients should bring to their first appointment.'],
      ],
    ),
    de: w(
      'Praxis',
      'Ruhig und vertrauenswürdig: Behandlungen, Termine, wie man die Praxis erreicht.',
      'Behandlung, der Sie vertrauen können{in_city}',
      'Behandlung mit Zeit für Ihre Fragen, in einer ruhigen Praxis.',
      'Behandlungen',
      'Unsere Behandlungen',
      [
        ['Erstgespräch', 'Ersetzen Sie dies durch den Ablauf eines ersten Termins.'],
        ['Behandlung', 'Ersetzen Sie dies durch die Behandlungen, die Sie anbieten.'],
        ['Vorsorge', 'Ersetzen Sie dies durch Ihre Vorsorgeangebote, falls vorhanden.'],
      ],
      '{name} ist eine Praxis{in_city}. Erzählen Sie Ihren Patientinnen und Patienten hier, wer sie behandelt, welche Qualifikationen Sie haben und was sie zum ersten Termin mitbringen sollten.\n\nErsetzen Sie diesen Text durch Ihre eigenen Worte.',
      [
        ['Wie bekomme ich einen Termin?', 'Sagen Sie hier, wie man einen Termin vereinbart: per Telefon, E-Mail oder online.'],
        ['Was soll ich mitbringen?', 'Sagen Sie hier, was zum ersten Termin mitzubringen ist.'],
      ],
    ),
    fr: w(
      'Cabinet de santé',
      'Calme et rassurant : soins, rendez-vous, comment joindre le cabinet.',
      'Des soins en toute confiance{in_city}',
      'Des soins avec du temps pour vos questions, dans un cabinet calme.',
      'Soins',
      'Nos soins',
      [
        ['Consultation', 'Remplacez par le déroulement d’un premier rendez-vous.'],
        ['Soins', 'Remplacez par les soins que vous proposez.'],
        ['Prévention', 'Remplacez par vos actions de prévention, le cas échéant.'],
      ],
      '{name} est un cabinet{in_city}. Dites ici à vos patients qui les soigne, vos qualifications et ce qu’il faut apporter au premier rendez-vous.\n\nRemplacez ce texte par vos propres mots.',
      [
        ['Comment prendre rendez-vous ?', 'Dites ici comment prendre rendez-vous : par téléphone, par e-mail ou en ligne.'],
        ['Que dois-je apporter ?', 'Dites ici ce qu’il faut apporter au premier rendez-vous.'],
      ],
    ),
  },
  club: {
    en: w(
      'Club or association',
      'Friendly greens: what the club does, when you meet, how to join.',
      'Join us{in_city}',
      'A club for everyone who shares our interest: come along and meet us.',
      'What we do',
      'Our activities',
      [
        ['Regular meetings', 'Replace with when and where members meet.'],
        ['Events', 'Replace with your events through the year.'],
        ['Membership', 'Replace with how to join and what it costs, if anything.'],
      ],
      '{name} is a club{in_city}. Tell your visitors here how the club started, who runs it and what members do together.\n\nReplace this text with your own story.',
      [
        ['Can I try it before joining?', 'Say here whether newcomers can come along first.'],
        ['How do I become a member?', 'Say here how to join.'],
      ],
    ),
    de: w(
      'Verein',
      'Freundliches Grün: was der Verein macht, wann man sich trifft, wie man mitmacht.',
      'Machen Sie mit{in_city}',
      'Ein Verein für alle, die unser Interesse teilen: Kommen Sie vorbei und lernen Sie uns kennen.',
      'Angebot',
      'Was wir machen',
      [
        ['Regelmäßige Treffen', 'Ersetzen Sie dies durch Zeit und Ort Ihrer Treffen.'],
        ['Veranstaltungen', 'Ersetzen Sie dies durch Ihre Veranstaltungen im Jahr.'],
        ['Mitgliedschaft', 'Ersetzen Sie dies durch den Weg zur Mitgliedschaft und den Beitrag, falls es einen gibt.'],
      ],
      '{name} ist ein Verein{in_city}. Erzählen Sie hier, wie der Verein entstand, wer ihn leitet und was die Mitglieder gemeinsam machen.\n\nErsetzen Sie diesen Text durch Ihre eigene Geschichte.',
      [
        ['Kann ich erst einmal reinschnuppern?', 'Sagen Sie hier, ob Neue zuerst unverbindlich vorbeikommen können.'],
        ['Wie werde ich Mitglied?', 'Sagen Sie hier, wie man Mitglied wird.'],
      ],
    ),
    fr: w(
      'Club ou association',
      'Des verts accueillants : ce que fait l’association, quand on se retrouve, comment adhérer.',
      'Rejoignez-nous{in_city}',
      'Une association ouverte à tous ceux qui partagent notre passion : venez nous rencontrer.',
      'Activités',
      'Nos activités',
      [
        ['Rencontres régulières', 'Remplacez par le jour et le lieu de vos rencontres.'],
        ['Événements', 'Remplacez par vos événements de l’année.'],
        ['Adhésion', 'Remplacez par la façon d’adhérer et la cotisation éventuelle.'],
      ],
      '{name} est une association{in_city}. Dites ici comment elle est née, qui l’anime et ce que ses membres font ensemble.\n\nRemplacez ce texte par votre histoire.',
      [
        ['Puis-je essayer avant d’adhérer ?', 'Dites ici si les nouveaux peuvent venir découvrir.'],
        ['Comment devenir membre ?', 'Dites ici comment adhérer.'],
      ],
    ),
  },
}
