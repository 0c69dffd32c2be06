import { Type } from 'typebox'

const Score = Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()])
const Weight = Type.Number({ minimum: 0, maximum: 1 })
const Ms = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])

export const McsQuery = Type.Object(
  { domain: Type.String({ minLength: 1, maxLength: 300, description: 'The domain, e.g. example.com' }) },
  { additionalProperties: false },
)

export const McsResultSchema = Type.Object(
  {
    domain: Type.String(),
    url: Type.String({ description: 'The page Lighthouse measured, after redirects' }),
    provider: Type.Union([Type.Literal('local'), Type.Literal('psi')], { description: 'local Lighthouse or PageSpeed Insights v5' }),
    form_factor: Type.Literal('mobile'),
    lighthouse_version: Type.String(),
    mcs: Type.Integer({ minimum: 0, maximum: 100, description: 'Weighted blend of the category scores (see weights)' }),
    categories: Type.Object(
      { performance: Score, accessibility: Score, best_practices: Score, seo: Score, agentic_browsing: Score },
      {
        additionalProperties: false,
        description: 'Lighthouse category scores 0–100; agentic_browsing is null where the Lighthouse version has no such category',
      },
    ),
    weights: Type.Object(
      {
        performance: Type.Optional(Weight),
        accessibility: Type.Optional(Weight),
        best_practices: Type.Optional(Weight),
        seo: Type.Optional(Weight),
        agentic_browsing: Type.Optional(Weight),
      },
      { additionalProperties: false },
    ),
    metrics: Type.Object(
      {
        first_contentful_paint_ms: Ms,
        largest_contentful_paint_ms: Ms,
        total_blocking_time_ms: Ms,
        cumulative_layout_shift: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
        speed_index_ms: Ms,
        time_to_interactive_ms: Ms,
      },
      { additionalProperties: false, description: 'Lab metrics of the run' },
    ),
    cached: Type.Boolean({ description: 'True when served from a run of the last 24 hours' }),
    measured_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)
