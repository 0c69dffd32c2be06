import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { accountById } from '../domain/accounts/accounts.ts'
import { PlanId } from '../domain/accounts/plans.ts'
import { PLAN_ACCESS, WINDOW_SECONDS } from '../domain/accounts/quota.ts'
import { notFound, sendItem } from './http.ts'

const Account = Type.Object(
  {
    id: Type.String({ description: 'acct_…' }),
    plan: PlanId,
    api_access: Type.Union([Type.Literal('none'), Type.Literal('read'), Type.Literal('read_write')]),
    quota: Type.Object(
      {
        requests_per_hour: Type.Integer({ minimum: 0 }),
        window_seconds: Type.Literal(WINDOW_SECONDS),
        override: Type.Boolean({ description: 'True when the account has an individual budget instead of the plan’s.' }),
      },
      { additionalProperties: false },
    ),
    usage: Type.Object(
      {
        used: Type.Integer({ minimum: 0, description: 'Requests counted in the current hour, this one included.' }),
        remaining: Type.Integer({ minimum: 0 }),
        window_start: Type.String({ format: 'date-time' }),
        resets_at: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)

/** GET /v1/account: the caller's plan, hourly budget and what is used of it. */
export default async function accountRoutes(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/account',
    {
      config: { operation: 'account.get', access: 'read' },
      schema: {
        summary: 'The account of the credential: plan, quota and usage',
        tags: ['account'],
        response: { 200: Type.Object(Account.properties, { additionalProperties: false, description: 'The account' }) },
      },
    },
    async (request, reply) => {
      const account = await accountById(app.db, request.principal.accountId)
      const charge = request.principal.quota
      if (!account) throw notFound('Account')
      const limit = charge.limit
      return sendItem(
        reply,
        {
          id: account.id,
          plan: account.plan,
          api_access: PLAN_ACCESS[account.plan].access,
          quota: { requests_per_hour: limit, window_seconds: WINDOW_SECONDS, override: account.quota_override !== null },
          usage: {
            used: charge.used,
            remaining: Math.max(0, limit - charge.used),
            window_start: new Date(charge.resetAt.getTime() - WINDOW_SECONDS * 1000).toISOString(),
            resets_at: charge.resetAt.toISOString(),
          },
          created_at: account.created_at.toISOString(),
        },
        { id: account.id, plan: account.plan, quota_override: account.quota_override },
      )
    },
  )
}
