import { Type } from 'typebox'
import { literalUnion } from '../../schemas.ts'
import { DEVICE_KINDS } from './classify.ts'
import { STATS_LIST_MAX } from './report.ts'

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A UTC day, YYYY-MM-DD' })
const Count = Type.Integer({ minimum: 0 })

/** DESIGN.md 18: a site's visitor statistics over a span of days, as REST and MCP answer them. */
export const SiteStats = Type.Object(
  {
    from: Day,
    to: Day,
    totals: Type.Object(
      {
        visitors: Type.Integer({ minimum: 0, description: 'Visitors of each day added up (a visitor of two days counts twice)' }),
        pageviews: Count,
        conversions: Type.Integer({ minimum: 0, description: "Contact-form messages and the assistant's leads" }),
      },
      { additionalProperties: false },
    ),
    days: Type.Array(Type.Object({ date: Day, visitors: Count, pageviews: Count }, { additionalProperties: false }), {
      description: 'Every day of the span, oldest first (days without visits included)',
    }),
    pages: Type.Array(Type.Object({ path: Type.String(), pageviews: Count, visitors: Count }, { additionalProperties: false }), {
      description: `The ${STATS_LIST_MAX} most viewed pages, most views first`,
    }),
    referrers: Type.Array(Type.Object({ host: Type.String(), visitors: Count }, { additionalProperties: false }), {
      description: `The ${STATS_LIST_MAX} hosts that sent the most visitors (the site's own pages left out)`,
    }),
    devices: Type.Array(Type.Object({ kind: literalUnion(DEVICE_KINDS), visitors: Count }, { additionalProperties: false })),
  },
  { additionalProperties: false },
)
