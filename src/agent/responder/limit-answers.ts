import type { Plan } from '../../domain/accounts/plans.ts'
import type { Locale } from '../../domain/locales.ts'
import { planExtras } from '../entitlements.ts'
import type { KnowledgeBase, Passage } from '../knowledge.ts'
import { keptText, storageText } from '../limits-wording.ts'
import { joinList } from '../phrases.ts'
import { planName } from './catalog.ts'

/**
 * Storage for photos and how long statistics are kept, answered from the price list for the plans
 * a question names ("how much space do I get on Lite?"), or for every plan when it names none.
 */
const STORAGE: Record<Locale, RegExp> = {
  en: /\b(storage|space|disk|how many (photos|pictures|images))\b/,
  de: /\b(speicher|speicherplatz|platz für|wie viele (fotos|bilder))\b/,
  fr: /\b(stockage|espace|combien de (photos|images))\b/,
}
const STATS: Record<Locale, RegExp> = {
  en: /\b(stats|statistics|analytics|visitor numbers|visits|visitor data)\b/,
  de: /\b(statistik\w*|besucherzahlen|besucherstatistik\w*|statistikdaten)\b/,
  fr: /\b(stats|statistiques|visites|chiffres de visite)\b/,
}
const KEPT: Record<Locale, RegExp> = {
  en: /\b(how long|keep|kept|retain\w*|stored|history|how far back)\b/,
  de: /\b(wie lange|speichert|gespeichert|aufbewahr\w*|behalten|bewahrt)\b/,
  fr: /\b(combien de temps|gard\w*|conserv\w*)\b/,
}
const wording = {
  en: {
    storage: (plan: string, s: string) => `${plan} includes ${s} of storage for photos and files.`,
    storageAll: (list: string) => `Storage for photos and files: ${list}.`,
    kept: (plan: string, s: string) => `On ${plan}, visitor statistics are kept ${s}.`,
    keptAll: (list: string) => `Visitor statistics are kept: ${list}.`,
  },
  de: {
    storage: (plan: string, s: string) => `${plan} enthält ${s} Speicher für Fotos und Dateien.`,
    storageAll: (list: string) => `Speicher für Fotos und Dateien: ${list}.`,
    kept: (plan: string, s: string) => `Bei ${plan} wird die Besucherstatistik ${s} gespeichert.`,
    keptAll: (list: string) => `Die Besucherstatistik wird gespeichert: ${list}.`,
  },
  fr: {
    storage: (plan: string, s: string) => `${plan} comprend ${s} de stockage pour les photos et fichiers.`,
    storageAll: (list: string) => `Stockage pour les photos et fichiers : ${list}.`,
    kept: (plan: string, s: string) => `Avec ${plan}, les statistiques de visite sont gardées ${s}.`,
    keptAll: (list: string) => `Les statistiques de visite sont gardées : ${list}.`,
  },
} satisfies Record<Locale, unknown>

export function limitAnswer(
  kb: KnowledgeBase,
  message: string,
  locale: Locale,
  plans: readonly Plan[],
  whole = message,
): { reply: string; passage: Passage | undefined } | undefined {
  const text = message.toLowerCase()
  const kind =
    STATS[locale].test(whole.toLowerCase()) && KEPT[locale].test(text) ? 'kept' : STORAGE[locale].test(text) ? 'storage' : undefined
  // Without a plan named, the knowledge base's passage (every plan's value) answers.
  if (!kind || plans.length === 0) return undefined
  const extras = planExtras(kb.pricing)
  const value = (id: Plan) => (kind === 'storage' ? storageText(extras[id].storageMb, locale) : keptText(extras[id].statsKept, locale))
  const w = wording[locale]
  const passage = kb.page(locale, kind === 'storage' ? 'media' : 'statistics')
  if (plans.length === 1) return { reply: w[kind](planName(plans[0]!, locale), value(plans[0]!)), passage }
  const ids = kb.pricing.plans.filter((p) => plans.includes(p.id)).map((p) => p.id)
  const list = joinList(
    ids.map((id) => `${planName(id, locale)} ${value(id)}`),
    locale,
  )
  return { reply: kind === 'storage' ? w.storageAll(list) : w.keptAll(list), passage }
}
