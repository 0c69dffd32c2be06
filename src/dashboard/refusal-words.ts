import { addOnTerms, planEntitlements } from '../domain/accounts/entitlements.ts'
import type { Role } from '../domain/accounts/members.ts'
import { planFactsOf } from '../domain/accounts/plan-refusals.ts'
import { ADD_ONS, PLANS, type AddOnId, type Plan } from '../domain/accounts/plans.ts'
import type { Translator } from '../domain/i18n/translator.ts'

/**
 * Refusals in the words of the dashboard's people. The registry's messages are the API's (their
 * bodies are part of its contract) and name internal ids (acct_…, plan pro, extra_seat); the
 * dashboard shows the same refusal with the price list's names and without the ids.
 */

/** 403 role_required as the person reads it, in the page's language: their role, who may, and whom to ask. */
export function roleRefusal(t: Translator, role: Role, needed: Role): string {
  return t.t('refusal.role', { role, needed })
}

/** The add-ons counted in units, and what one unit is. */
const UNITS: Partial<Record<AddOnId, readonly [one: string, many: string]>> = {
  extra_seat: ['seat', 'seats'],
  extra_domain: ['domain', 'domains'],
}
const PLAN_ID = new RegExp(`\\bplan (${PLANS.join('|')})\\b`, 'g')
const ADD_ON_ID = new RegExp(`\\b(?:the )?(${ADD_ONS.join('|')})\\b`, 'g')

/** A plan_limit or plan_required message with the plans and add-ons as the price list names them, and no ids. */
export function plainPlanWords(detail: string): string {
  let text = detail
    .replace(/^The site site_[\w-]+ is over the limit of the account acct_[\w-]+:/, 'This site is over your account’s limit:')
    .replace(/\bThe account acct_[\w-]+ is\b/g, 'Your account is')
    .replace(/\bthe account acct_[\w-]+/g, 'your account')
  for (const [id, [one, many]] of Object.entries(UNITS) as Array<[AddOnId, readonly [string, string]]>) {
    text = text
      .replace(
        new RegExp(`\\(with the ${id} add-on ×(\\d+): (\\d+)\\)`, 'g'),
        (_m, n: string, total: string) => `(with ${n} extra ${Number(n) === 1 ? one : many}: ${total} in all)`,
      )
      .replace(new RegExp(`one more ${id} add-on`, 'g'), `one more ${one}`)
      .replace(new RegExp(`can book the ${id} add-on`, 'g'), `can add extra ${many}`)
  }
  return sentence(
    text
      .replace(ADD_ON_ID, (match, id: AddOnId) => `${match.startsWith('the ') ? 'the ' : ''}${addOnTerms(id).name}`)
      .replace(PLAN_ID, (_m, id: Plan) => `plan ${planEntitlements(id).name}`)
      .replace(/\s?\b(?:acct|site|usr)_[A-Za-z0-9_-]+/g, ''),
  )
}

/** Ends a message with a full stop unless it already ends a sentence. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`
}

/**
 * A plan_limit or plan_required refusal in the page's language. The domain words its refusals in
 * English, naming the exact allowance; English pages show them plainly (plainPlanWords), the
 * others word the refusal's facts (planFactsOf) in their own words, or say which kind it is.
 */
export function planRefusal(t: Translator, refusal: { code: string; detail: string }, error: unknown): string {
  if (t.lang === 'en') return plainPlanWords(refusal.detail)
  const facts = planFactsOf(error)
  const plan = facts && planEntitlements(facts.plan).name
  switch (facts?.about) {
    case 'sites':
    case 'domains':
    case 'seats':
      return t.t(`refusal.plan.${facts.about}`, { plan: plan!, allowed: facts.allowed, has: facts.has })
    case 'publish':
      return t.t('refusal.plan.publish', { plan: plan!, allowed: facts.allowed })
    case 'storage':
      return t.t('refusal.plan.storage', { plan: plan!, allowed: t.number(facts.allowedMb), used: t.number(Math.ceil(facts.usedMb)) })
    case 'feature':
      return t.t('refusal.plan.feature', { plan: plan!, from: facts.from ? planEntitlements(facts.from).name : 'none' })
    default:
      return t.t(refusal.code === 'plan_required' ? 'refusal.planRequired' : 'refusal.planLimit')
  }
}
