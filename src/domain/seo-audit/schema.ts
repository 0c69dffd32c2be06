import { Type } from 'typebox'

const Axis = Type.Union([Type.Literal('seo'), Type.Literal('aeo'), Type.Literal('geo')])
const Severity = Type.Union([Type.Literal('critical'), Type.Literal('warning'), Type.Literal('notice'), Type.Literal('info')], {
  description: 'critical blocks visibility; warning costs ranking or citations; notice is a missed chance; info is not scored',
})
const Effort = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])

const AxisScore = Type.Object(
  {
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    rules_checked: Type.Integer({ minimum: 0 }),
    rules_failed: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

export const Finding = Type.Object(
  {
    rule: Type.String({ description: 'Stable rule id, e.g. seo.title' }),
    axis: Axis,
    severity: Severity,
    message: Type.String(),
    evidence: Type.Optional(Type.String()),
    page: Type.Optional(Type.String({ description: 'The page the finding is about' })),
  },
  { additionalProperties: false },
)

export const AuditReportSchema = Type.Object(
  {
    report_id: Type.String({ description: 'aud_ id of the stored report' }),
    domain: Type.String(),
    url: Type.String({ description: 'The home page URL after redirects' }),
    premium: Type.Boolean(),
    reachable: Type.Boolean({ description: 'False when neither https nor http answered; the findings say why' }),
    cached: Type.Boolean({ description: 'True when served from a report made within the last 10 minutes' }),
    generated_at: Type.String({ format: 'date-time' }),
    score: Type.Integer({ minimum: 0, maximum: 100, description: 'seo 50 %, aeo 25 %, geo 25 %' }),
    axes: Type.Object({ seo: AxisScore, aeo: AxisScore, geo: AxisScore }, { additionalProperties: false }),
    findings: Type.Array(Finding),
    quick_wins: Type.Array(
      Type.Object(
        {
          rule: Type.String(),
          axis: Axis,
          fix: Type.String(),
          gain: Type.Number({ minimum: 0, maximum: 100, description: 'Points of the overall score the fix is worth' }),
          effort: Effort,
        },
        { additionalProperties: false },
      ),
      { maxItems: 5, description: 'Best gain for the effort first' },
    ),
    pages_checked: Type.Integer({ minimum: 0 }),
    ai_crawlers: Type.Array(
      Type.Object(
        {
          agent: Type.String(),
          operator: Type.String(),
          purpose: Type.Union([Type.Literal('search'), Type.Literal('user_action'), Type.Literal('training')]),
          allowed: Type.Boolean({ description: 'Whether robots.txt lets it fetch the home page' }),
        },
        { additionalProperties: false },
      ),
    ),
    duration_ms: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

export const AuditQuery = Type.Object(
  {
    d: Type.String({ minLength: 1, maxLength: 300, description: 'The domain, e.g. example.com' }),
    premium: Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')], { description: '1: also crawl up to 50 internal pages' })),
  },
  { additionalProperties: false },
)
