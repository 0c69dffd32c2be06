import type { Locale } from '../../domain/locales.ts'
import type { Plan } from '../../domain/accounts/plans.ts'

type Localized = Record<Locale, string>

/**
 * What the assistant says about each plan and add-on, keyed by the price list's ids. The price list
 * (src/domain/accounts/pricing-data.json) holds the amounts and the English names /api/pricing serves; the
 * names and summaries visitors read in each language live here, next to the words visitors use
 * for them. `{api}` in a summary is the plan's API requests an hour from the price list.
 */
export interface PlanWording {
  name: Localized
  summary: Localized
}

export interface AddOnWording {
  name: Localized
  description: Localized
  /** Phrases (whole words, lower case) that name the add-on in a question. */
  aliases: Record<Locale, readonly string[]>
}

export const planWording: Record<Plan, PlanWording> = {
  free: {
    name: { de: 'Free', en: 'Free', fr: 'Free' },
    summary: {
      de: 'eine Website auf einer Plattform-Subdomain, das SEO/AEO/GEO-Audit und die Core-Web-Vitals-Abfrage',
      en: 'one site on a platform subdomain, the SEO/AEO/GEO audit and the Core Web Vitals lookup',
      fr: "un site sur un sous-domaine de la plateforme, l'audit SEO/AEO/GEO et la consultation des Core Web Vitals",
    },
  },
  lite: {
    name: { de: 'Lite', en: 'Lite', fr: 'Lite' },
    summary: {
      de: 'eine Website mit eigener Domain, ein SSL-Zertifikat und einen monatlichen SEO-Bericht',
      en: 'one site with your own domain, an SSL certificate and a monthly SEO report',
      fr: 'un site avec votre propre domaine, un certificat SSL et un rapport SEO mensuel',
    },
  },
  plus: {
    name: { de: 'Plus', en: 'Plus', fr: 'Plus' },
    summary: {
      de: 'drei Websites mit eigener Domain und lesenden Zugriff auf die REST-API ({api} Anfragen pro Stunde)',
      en: 'three sites with their own domains and read-only REST API access ({api} requests an hour)',
      fr: "trois sites avec leur propre domaine et l'accès en lecture à l'API REST ({api} requêtes par heure)",
    },
  },
  pro: {
    name: { de: 'Pro', en: 'Pro', fr: 'Pro' },
    summary: {
      de: 'zehn Websites mit eigener Domain, die REST-API mit Schreibzugriff ({api} Anfragen pro Stunde), signierte Webhooks und wöchentliche SEO-Berichte',
      en: 'ten sites with their own domains, the REST API with write access ({api} requests an hour), signed webhooks and weekly SEO reports',
      fr: "dix sites avec leur propre domaine, l'API REST en écriture ({api} requêtes par heure), des webhooks signés et des rapports SEO hebdomadaires",
    },
  },
  max: {
    name: { de: 'Max', en: 'Max', fr: 'Max' },
    summary: {
      de: 'unbegrenzt viele Websites, höhere API-Limits ({api} Anfragen pro Stunde), ein SLA und bevorzugten Support',
      en: 'unlimited sites, higher API limits ({api} requests an hour), an SLA and priority support',
      fr: "des sites illimités, des limites d'API plus élevées ({api} requêtes par heure), un SLA et un support prioritaire",
    },
  },
}

export const addOnWording: Record<string, AddOnWording> = {
  extra_domain: {
    name: { de: 'Zusätzliche Domain', en: 'Extra domain', fr: 'Domaine supplémentaire' },
    description: {
      de: 'eine weitere eigene Domain in jedem bezahlten Tarif',
      en: 'one more custom domain on any paid plan',
      fr: 'un domaine personnalisé de plus sur toute formule payante',
    },
    aliases: {
      de: [
        'zusätzliche domain',
        'zusätzlichen domain',
        'weitere domain',
        'weiteren domain',
        'zweite domain',
        'zweiten domain',
        'mehr domains',
        'weitere domains',
        'zusätzliche domains',
        'extra domain',
        'mehrere domains',
        'zwei domains',
        'pro domain',
        'jede domain',
      ],
      en: [
        'extra domain',
        'extra domains',
        'additional domain',
        'additional domains',
        'another domain',
        'more domains',
        'second domain',
        'several domains',
        'multiple domains',
        'two domains',
        'each domain',
        'per domain',
      ],
      fr: [
        'domaine supplémentaire',
        'domaines supplémentaires',
        'autre domaine',
        'deuxième domaine',
        'second domaine',
        'plusieurs domaines',
        'deux domaines',
        'domaine en plus',
        'par domaine',
      ],
    },
  },
  ai_sales_assistant: {
    name: { de: 'KI-Verkaufsassistent', en: 'AI sales assistant', fr: 'Assistant commercial IA' },
    description: {
      de: 'der Chat-Assistent auf Ihrer Website, mit Kontaktanfragen und Übergabe an Ihr Team; buchbar ab Plus',
      en: 'the chat assistant on your site, with lead capture and handoff to your team; available from Plus',
      fr: "l'assistant de chat sur votre site, avec recueil de contacts et transfert à votre équipe ; disponible à partir de Plus",
    },
    aliases: {
      de: [
        'ki assistent',
        'ki assistenten',
        'verkaufsassistent',
        'verkaufsassistenten',
        'assistent',
        'assistenten',
        'chatbot',
        'chat assistent',
        'ki chat',
        'chat ding',
        'bot',
        'chat widget',
      ],
      en: [
        'ai assistant',
        'sales assistant',
        'assistant',
        'chatbot',
        'chat bot',
        'chat widget',
        'ai chat',
        'chat thing',
        'bot',
        'chat assistant',
      ],
      fr: [
        'assistant ia',
        'assistant commercial',
        'assistant',
        'chatbot',
        'agent conversationnel',
        'chat ia',
        'truc de chat',
        'bot',
        'widget de chat',
      ],
    },
  },
  premium_seo_reports: {
    name: { de: 'Premium-SEO-Berichte', en: 'Premium SEO reports', fr: 'Rapports SEO premium' },
    description: {
      de: 'gründliche Audits von bis zu 50 Seiten mit AEO- und GEO-Befunden',
      en: 'deep audits of up to 50 pages with AEO and GEO findings',
      fr: "des audits approfondis jusqu'à 50 pages avec les constats AEO et GEO",
    },
    aliases: {
      de: ['premium seo', 'premium bericht', 'premium berichte', 'premium audit', 'seo berichte'],
      en: ['premium seo', 'premium report', 'premium reports', 'premium audit', 'seo reports'],
      fr: ['rapports seo premium', 'rapport seo premium', 'seo premium', 'audit premium', 'rapports premium'],
    },
  },
  extra_seat: {
    name: { de: 'Zusätzlicher Teamplatz', en: 'Extra seat', fr: 'Utilisateur supplémentaire' },
    description: {
      de: 'ein weiteres Teammitglied mit Zugang zum Dashboard',
      en: 'one more team member with dashboard access',
      fr: "un membre d'équipe de plus avec accès au tableau de bord",
    },
    aliases: {
      de: [
        'teamplatz',
        'teamplätze',
        'zusätzlicher nutzer',
        'zusätzliche nutzer',
        'weitere nutzer',
        'weiteren nutzer',
        'nutzerplatz',
        'weiteres teammitglied',
        'zusätzliches teammitglied',
        'weiterer nutzer',
        'zweiter nutzer',
        'zweiten nutzer',
        'pro nutzer',
        'je nutzer',
        'teammitglied',
        'teammitglieder',
        'kollege',
        'kollegen',
        'kollegin',
        'weiterer platz',
        'zusätzlicher platz',
        'zusätzlichen platz',
        'weiteren platz',
        'extra platz',
        'benutzer',
      ],
      en: [
        'extra seat',
        'extra seats',
        'seat',
        'seats',
        'additional user',
        'additional users',
        'extra user',
        'extra users',
        'more users',
        'another user',
        'second user',
        'per user',
        'each user',
        'team member',
        'team members',
        'another member',
        'extra member',
        'colleague',
        'colleagues',
        'teammate',
        'coworker',
      ],
      fr: [
        'utilisateur supplémentaire',
        'utilisateurs supplémentaires',
        'siège',
        'sièges',
        'membre supplémentaire',
        'collaborateur supplémentaire',
        'place supplémentaire',
        'place en plus',
        'places en plus',
        'une place de plus',
        'utilisateur',
        'utilisateurs',
        'par utilisateur',
        'collègue',
        'collègues',
        'membre',
        'membres',
        'deuxième utilisateur',
      ],
    },
  },
}

export const planName = (id: string, locale: Locale): string => planWording[id as Plan]?.name[locale] ?? id
export const addOnName = (id: string, locale: Locale): string => addOnWording[id]?.name[locale] ?? id
