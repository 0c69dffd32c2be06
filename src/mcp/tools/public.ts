import { Type, type TSchema } from 'typebox'
import { loadPricing, Pricing } from '../../domain/accounts/plans.ts'
import { AuditReportSchema } from '../../domain/seo-audit/schema.ts'
import { McsResultSchema } from '../../domain/checks/site-quality-schema.ts'
import { CwvHistory, CwvLookup } from '../../domain/checks/web-vitals-schema.ts'
import type { PublicChecks } from '../../domain/checks/public-checks.ts'
import { defineTool, type Caller, type ToolSpec } from '../tool.ts'

const Domain = Type.String({ minLength: 1, maxLength: 300, description: 'A domain name, e.g. example.com' })
const NoArguments = Type.Object({}, { additionalProperties: false })
const outside = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true }

/**
 * Runs a public check through the same service as its /api route: the same validation, caching,
 * shared runs and per-address budget, charged to the caller's address. A refusal (invalid domain,
 * no provider configured, limit reached) is a tool error with the registry's code.
 */
async function publicCheck<T>(caller: Caller, budget: 'audits' | 'public', check: (checks: PublicChecks) => Promise<T>): Promise<T> {
  await caller.app.publicChecks.charge(caller.request, budget)
  return check(caller.app.publicChecks)
}

/** An output schema is an object at its top; a union of objects says so once more. */
const objectUnion = (...members: TSchema[]) => ({ ...Type.Union(members), type: 'object' }) as unknown as TSchema

export const publicTools: ToolSpec[] = [
  defineTool({
    name: 'get_pricing',
    title: 'Plans and prices',
    description:
      'The plans (free, lite, plus, pro, max) with their monthly and yearly prices in euro cents, features, API access and hourly API quota, and the add-ons.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:read',
    input: NoArguments,
    output: Pricing,
    run: async () => loadPricing(),
  }),
  defineTool({
    name: 'audit_domain',
    title: 'SEO, AEO and GEO audit',
    description:
      'Audits a website for search engines (SEO), answer engines (AEO) and generative engines (GEO): an overall score, a score per axis, findings and the quick wins worth most. ' +
      'A repeat within 10 minutes is answered from the stored report. premium also crawls up to 50 internal pages.',
    annotations: outside,
    scope: 'mcp:read',
    input: Type.Object({ domain: Domain, premium: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false }),
    output: AuditReportSchema,
    run: (args, caller) => publicCheck(caller, 'audits', (checks) => checks.seoAudit(args.domain, args.premium ?? false)),
  }),
  defineTool({
    name: 'check_site_quality',
    title: 'Site quality (Lighthouse)',
    description:
      'Measures the home page of a website with Lighthouse on a phone: performance, accessibility, best practices, SEO and the MCS blend, with the lab metrics. Results are kept 24 hours.',
    annotations: outside,
    scope: 'mcp:read',
    input: Type.Object({ domain: Domain }, { additionalProperties: false }),
    output: McsResultSchema,
    run: (args, caller) => publicCheck(caller, 'audits', (checks) => checks.siteQuality(args.domain)),
  }),
  defineTool({
    name: 'get_core_web_vitals',
    title: 'Core Web Vitals field data',
    description:
      'Core Web Vitals of real Chrome users from the Chrome UX Report (CC-BY-4.0): LCP, INP, CLS, FCP and TTFB at the 75th percentile with their rating, for phones and desktops. ' +
      'action history gives the weekly series. Too little traffic is answered with status insufficient_data.',
    annotations: outside,
    scope: 'mcp:read',
    input: Type.Object(
      { domain: Domain, action: Type.Optional(Type.Union([Type.Literal('lookup'), Type.Literal('history')], { default: 'lookup' })) },
      { additionalProperties: false },
    ),
    output: objectUnion(CwvLookup, CwvHistory),
    run: (args, caller) => publicCheck(caller, 'public', (checks) => checks.coreWebVitals(args.domain, args.action ?? 'lookup')) as never,
  }),
]
