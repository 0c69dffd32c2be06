import type { Plan } from '../../domain/accounts/plans.ts'
import type { Locale } from '../../domain/locales.ts'
import { planExtras } from '../entitlements.ts'
import { limitsList, type KnowledgeBase, type Passage } from '../knowledge.ts'
import { keptText, storageText } from '../limits-wording.ts'
import { planName } from './catalog.ts'

/**
 * Storage for photos and how long statistics are kept, answered from the price list for the plans
 * a question names ("how much space do I get on Lite?"), or for every plan when it names none.
 */
const STORAGE: Record<Locale, RegExp> = {
  en: /\b(storage|disk space|space (for|on)|how much space|how many (photos|pictures|images))\b/,
  de: /\b(speicher|speicherplatz|platz für|wie viel platz|wie viele (fotos|bilder))\b/,
  fr: /\b(stockage|espace (de stockage|pour|disque)|combien d'espace|combien de (photos|images))\b/,
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
  if (!kind) return undefined
  const extras = planExtras(kb.pricing)
  const value = (id: Plan) => (kind === 'storage' ? storageText(extras[id].storageMb, locale) : keptText(extras[id].statsKept, locale))
  const w = wording[locale]
  const passage = kb.page(locale, kind === 'storage' ? 'media' : 'statistics')
  if (plans.length === 1) return { reply: w[kind](planName(plans[0]!, locale), value(plans[0]!)), passage }
  const list = limitsList(kb.pricing, kind === 'storage' ? 'storage' : 'stats_kept', locale, plans.length > 1 ? plans : undefined)
  return { reply: kind === 'storage' ? w.storageAll(list) : w.keptAll(list), passage }
}
