import { describe, expect, it } from 'vitest'
import { formatEuro } from '../../../src/agent/knowledge.ts'
import { loadPricing } from '../../../src/domain/accounts/plans.ts'
import { LOCALES, type Locale } from '../../../src/domain/locales.ts'
import { createSite } from '../../../src/domain/sites/sites.ts'
import { buildTestApp } from '../../helpers/app.ts'
import { contractErrors } from '../contract.ts'
import { bootstrap, chat } from '../helpers.ts'
import { heldOut } from './held-out.ts'
import { questions, type EvalCase } from './questions.ts'

/**
 * Scores the sales assistant on two evaluation sets, every question through the real chat endpoint
 * (a fresh session each, on a site with the capabilities the question assumes): the set the
 * knowledge was written and tuned against (questions.ts), and a held-out set written by someone
 * who had not seen the knowledge files and never read while tuning (held-out.ts). Prints both
 * scores and their misses; fails below 92 % on either.
 */
const BASE_URL = 'https://platform.test'
const { app } = await buildTestApp({ env: { BASE_URL } })
const hosts = { plain: 'plain.eval.test', leads: 'leads.eval.test', handoff: 'handoff.eval.test' } as const
await createSite(app.db, { name: 'Plain', hostname: hosts.plain, settings: { assistant: { enabled: true } } })
await createSite(app.db, { name: 'Leads', hostname: hosts.leads, settings: { assistant: { enabled: true, capabilities: { lead: true } } } })
await createSite(app.db, {
  name: 'Handoff',
  hostname: hosts.handoff,
  settings: { assistant: { enabled: true, capabilities: { handoff: true } } },
})

const pricing = loadPricing()
function amounts(token: string, locale: Locale): string {
  return token.replace(/\{(price|yearly|addon):([a-z_]+)\}/g, (_m, kind: string, id: string) => {
    if (kind === 'addon') return formatEuro(pricing.add_ons.find((a) => a.id === id)!.monthly_price_cents, locale)
    const plan = pricing.plans.find((p) => p.id === id)!
    return formatEuro(kind === 'price' ? plan.monthly_price_cents : plan.yearly_price_cents, locale)
  })
}

/** How each language says "I cannot answer that" (the refusal must say so plainly). */
const saysItCannot: Record<Locale, RegExp> = {
  en: /can't answer that|don't have reliable information|not sure/i,
  de: /nicht sicher beantworten|keine gesicherte Information/i,
  fr: /pas vous répondre avec certitude|pas d'information fiable/i,
}
const mentionsPerson: Record<Locale, RegExp> = { en: /person/i, de: /Menschen/, fr: /personne/i }
const MONEY = /€|\bEUR\b/

interface ChatBody {
  reply: string
  actions?: Array<{ type: string; href?: string; url?: string }>
  suggestions?: Array<{ label: string; prompt: string }>
  sources?: Array<{ title: string; url: string }>
  handoff: { state: string }
}

/** The first sentence: up to the first . ! or ? that ends a sentence (not the dot in €470.40). */
const firstSentence = (text: string) => /^[\s\S]*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text

function misses(c: EvalCase, locale: Locale, body: ChatBody): string[] {
  const out: string[] = []
  const first = firstSentence(body.reply)
  for (const fact of c.first ?? []) if (!first.includes(amounts(fact, locale))) out.push(`first sentence lacks "${amounts(fact, locale)}"`)
  for (const fact of c.facts ?? []) if (!body.reply.includes(amounts(fact, locale))) out.push(`reply lacks "${amounts(fact, locale)}"`)
  const action = body.actions?.[0]
  if (c.action === 'none' && action) out.push(`unexpected action ${action.type}`)
  else if (c.action && c.action !== 'none' && action?.type !== c.action) out.push(`action ${action?.type ?? 'none'}, expected ${c.action}`)
  if (c.href && action?.href !== c.href) out.push(`navigates to ${action?.href}, expected ${c.href}`)
  if (c.handoff && body.handoff.state !== c.handoff) out.push(`handoff ${body.handoff.state}, expected ${c.handoff}`)
  if (c.refusal) {
    if (!saysItCannot[locale].test(body.reply)) out.push('does not say it cannot answer')
    if (MONEY.test(body.reply)) out.push('quotes an amount in a refusal')
    if (body.sources?.length) out.push('cites a source in a refusal')
  } else if (saysItCannot[locale].test(body.reply)) out.push('refused an answerable question')
  for (const step of c.next ?? []) {
    if (step === 'person' && !(body.suggestions?.length && mentionsPerson[locale].test(body.reply))) out.push('does not offer a person')
    if (step === 'lead' && !body.actions?.some((a) => a.type === 'capture_lead')) out.push('does not offer the lead form')
    if (step === 'contact' && !body.actions?.some((a) => a.type === 'navigate' && a.href === `/${locale}/contact`))
      out.push('does not point to the contact page')
  }
  return out
}

async function ask(c: EvalCase, locale: Locale): Promise<ChatBody> {
  const site = c.site ?? 'platform'
  const origin = site === 'platform' ? BASE_URL : `https://${hosts[site]}`
  const session = await bootstrap(app, { locale, ...(site === 'platform' ? {} : { url: `${origin}/` }) })
  const res = await chat(app, session, c.q, c.url ? { url: `${origin}${c.url}` } : {})
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json() as ChatBody
  expect(contractErrors('chat', body), res.body).toEqual([])
  return body
}

type Result = { locale: Locale; c: EvalCase; body: ChatBody; misses: string[] }

/**
 * Scores a set and prints the score and the misses. A held-out set's misses are printed without
 * their questions and replies (topic and what went wrong only), so tuning cannot learn its
 * wording; EVAL_SHOW_HELD_OUT=1 prints them in full for a review after tuning.
 */
async function score(
  name: string,
  set: Record<Locale, EvalCase[]>,
  options: { blind?: boolean } = {},
): Promise<{ score: number; short: number; results: Result[] }> {
  const results: Result[] = []
  for (const locale of LOCALES) {
    for (const c of set[locale]) {
      const body = await ask(c, locale)
      results.push({ locale, c, body, misses: misses(c, locale, body) })
    }
  }
  const passed = (list: Result[]) => list.filter((r) => r.misses.length === 0).length
  const lines = LOCALES.map((l) => {
    const mine = results.filter((r) => r.locale === l)
    return `${l}: ${passed(mine)}/${mine.length}`
  })
  const short = results.filter((r) => r.body.reply.length < 400).length / results.length
  const rate = passed(results) / results.length
  console.log(
    [
      `sales assistant evaluation, ${name}: ${passed(results)}/${results.length} = ${(rate * 100).toFixed(1)} % (${lines.join(', ')})`,
      `replies under 400 characters: ${(short * 100).toFixed(1)} %; longest ${Math.max(...results.map((r) => r.body.reply.length))}`,
      ...results
        .filter((r) => r.misses.length)
        .map((r) =>
          options.blind
            ? `  miss [${r.locale}] ${r.c.topic}: ${r.misses.join('; ')}`
            : `  miss [${r.locale}] ${r.c.q}: ${r.misses.join('; ')}\n    → ${r.body.reply}`,
        ),
    ].join('\n'),
  )
  return { score: rate, short, results }
}

describe('sales assistant evaluation', () => {
  it('has at least 80 tuned and 20 held-out questions per locale, the tuned ones covering every topic', () => {
    for (const locale of LOCALES) {
      expect(questions[locale].length).toBeGreaterThanOrEqual(80)
      expect(new Set(questions[locale].map((c) => c.topic)).size).toBe(12)
      expect(heldOut[locale].length).toBeGreaterThanOrEqual(20)
    }
  })

  it('answers at least 92 % of the tuned questions right', async () => {
    const { score: rate, short, results } = await score('tuned set', questions)
    for (const r of results) expect(r.body.reply.length).toBeLessThanOrEqual(1500)
    expect(short).toBeGreaterThanOrEqual(0.9)
    expect(rate).toBeGreaterThanOrEqual(0.92)
  }, 120_000)

  it('answers at least 92 % of the held-out questions right', async () => {
    const { score: rate, results } = await score('held-out set', heldOut, { blind: process.env.EVAL_SHOW_HELD_OUT !== '1' })
    for (const r of results) expect(r.body.reply.length).toBeLessThanOrEqual(1500)
    expect(rate).toBeGreaterThanOrEqual(0.92)
  }, 120_000)
})
