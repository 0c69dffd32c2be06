import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Type, type Static } from 'typebox'
import type { FastifyInstance } from 'fastify'
import { Problem } from '../schemas.ts'
import { limitPerMinute } from '../plugins/rate-limit.ts'

export const PlanId = Type.Union([Type.Literal('free'), Type.Literal('lite'), Type.Literal('plus'), Type.Literal('pro'), Type.Literal('max')])

const Plan = Type.Object(
  {
    id: PlanId,
    name: Type.String(),
    monthly_price_cents: Type.Integer({ minimum: 0 }),
    yearly_price_cents: Type.Integer({ minimum: 0, description: 'Price for a year paid at once, with the yearly discount.' }),
    features: Type.Array(Type.String()),
    api_access: Type.Union([Type.Literal('none'), Type.Literal('read'), Type.Literal('read_write')]),
    webhooks: Type.Boolean(),
    api_requests_per_hour: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

const AddOn = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    monthly_price_cents: Type.Integer({ minimum: 0 }),
    description: Type.String(),
  },
  { additionalProperties: false },
)

export const Pricing = Type.Object(
  {
    currency: Type.Literal('EUR'),
    vat_note: Type.String(),
    yearly_discount_percent: Type.Integer({ minimum: 0, maximum: 100 }),
    plans: Type.Array(Plan),
    add_ons: Type.Array(AddOn),
  },
  { additionalProperties: false },
)
export type Pricing = Static<typeof Pricing>

type PricingFile = Omit<Pricing, 'plans'> & { plans: Array<Omit<Static<typeof Plan>, 'yearly_price_cents'>> }

/** The price list, read once from the one data file that the assistant's answers also quote. */
export function loadPricing(): Pricing {
  const file = JSON.parse(readFileSync(new URL('./pricing-data.json', import.meta.url), 'utf8')) as PricingFile
  const factor = 12 * (1 - file.yearly_discount_percent / 100)
  return {
    ...file,
    plans: file.plans.map((plan) => ({ ...plan, yearly_price_cents: Math.round(plan.monthly_price_cents * factor) })),
  }
}

/** Requests a minute per client address on the public read endpoints (docs/decisions.md). */
export const PUBLIC_PER_MINUTE = 60

export default async function pricingRoute(app: FastifyInstance) {
  // The list changes only with a deploy: serialise it once and let caches revalidate by ETag.
  const body = JSON.stringify(loadPricing())
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

  app.get(
    '/pricing',
    {
      config: limitPerMinute(app.config, PUBLIC_PER_MINUTE, 'public'),
      schema: {
        summary: 'Plans and add-ons',
        tags: ['public'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Pricing, 304: Type.Null({ description: 'Not modified' }), 400: Problem, 429: Problem },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'public, max-age=300').header('etag', etag)
      if (request.headers['if-none-match'] === etag) return reply.code(304).send()
      return reply.type('application/json; charset=utf-8').send(body)
    },
  )
}
