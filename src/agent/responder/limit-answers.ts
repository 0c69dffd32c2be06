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
  de: /\b(speicher|speicherplatz|platz für (fotos|bilder|dateien)|wie viel platz|wie viele (fotos|bilder))\b/,
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
/**
 * "What happens when it is full", "…if I downgrade and I am over it": the rule that applies, which
 * the knowledge file's storage section states after the list.
 */
const CONSEQUENCE: Record<Locale, RegExp> = {
  en: /\b(full|over|exceed\w*|runs? out|ran out|downgrad\w*|delet\w*|lose|happens?)\b/,
  de: /\b(voll|über|überschrit\w*|downgrad\w*|runter\w*|lösch\w*|verlier\w*|passiert)\b/,
  fr: /\b(plein|dépass\w*|descend\w*|supprim\w*|effac\w*|perd\w*|devien\w*|se passe)\b/,
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
  const rule = kind === 'storage' && CONSEQUENCE[locale].test(text) ? storageRule(kb, locale) : undefined
  const withRule = (reply: string) => (rule ? `${reply} ${rule.text}` : reply)
  const source = rule?.passage ?? passage
  if (plans.length === 1) return { reply: withRule(w[kind](planName(plans[0]!, locale), value(plans[0]!))), passage: source }
  const list = limitsList(kb.pricing, kind === 'storage' ? 'storage' : 'stats_kept', locale, plans.length > 1 ? plans : undefined)
  return { reply: withRule(kind === 'storage' ? w.storageAll(list) : w.keptAll(list)), passage: source }
}

/** The storage section's sentences after the list: what happens when it is full or after a downgrade. */
function storageRule(kb: KnowledgeBase, locale: Locale): { text: string; passage: Passage } | undefined {
  const list = limitsList(kb.pricing, 'storage', locale)
  const passage = kb.passages(locale).find((p) => p.siteId === undefined && p.text.includes(list))
  const at = passage?.text.indexOf('. ', passage.text.indexOf(list))
  return passage && at !== undefined && at >= 0 ? { text: passage.text.slice(at + 2), passage } : undefined
}
