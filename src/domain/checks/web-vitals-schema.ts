import { Type } from 'typebox'

const Rating = Type.Union([Type.Literal('good'), Type.Literal('needs_improvement'), Type.Literal('poor')])
const Unit = Type.Union([Type.Literal('ms'), Type.Literal('unitless')])
const Fraction = Type.Number({ minimum: 0, maximum: 1 })
const Day = Type.Union([Type.String({ format: 'date' }), Type.Null()])
const Period = Type.Object({ first_date: Day, last_date: Day }, { additionalProperties: false })

const Vital = Type.Union([
  Type.Object(
    {
      p75: Type.Number({ minimum: 0, description: '75th percentile (ms, or unitless for CLS)' }),
      unit: Unit,
      rating: Rating,
      distribution: Type.Object(
        { good: Fraction, needs_improvement: Fraction, poor: Fraction },
        { additionalProperties: false, description: 'Share of page loads in each range' },
      ),
      thresholds: Type.Object({ good: Type.Number(), poor: Type.Number() }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
])

const Vitals = <T extends ReturnType<typeof Type.Union>>(item: T) =>
  Type.Object({ lcp: item, inp: item, cls: item, fcp: item, ttfb: item }, { additionalProperties: false })

const Series = Type.Union([
  Type.Object(
    {
      unit: Unit,
      p75: Type.Array(Type.Union([Type.Number(), Type.Null()])),
      rating: Type.Array(Type.Union([Rating, Type.Null()])),
      good: Type.Array(Type.Union([Fraction, Type.Null()])),
      needs_improvement: Type.Array(Type.Union([Fraction, Type.Null()])),
      poor: Type.Array(Type.Union([Fraction, Type.Null()])),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
])

const LookupFormFactor = Type.Union([Type.Object({ metrics: Vitals(Vital) }, { additionalProperties: false }), Type.Null()])
const HistoryFormFactor = Type.Union([
  Type.Object({ collection_periods: Type.Array(Period), metrics: Vitals(Series) }, { additionalProperties: false }),
  Type.Null(),
])

const Attribution = Type.Object(
  { source: Type.String(), license: Type.Literal('CC-BY-4.0'), license_url: Type.String(), text: Type.String() },
  { additionalProperties: false },
)
const Status = Type.Union([Type.Literal('ok'), Type.Literal('insufficient_data')], {
  description: 'insufficient_data: CrUX has not enough field data for the origin',
})

const common = {
  domain: Type.String(),
  origin: Type.String(),
  attribution: Attribution,
}
const cacheFields = {
  cached: Type.Boolean(),
  fetched_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time', description: 'The next daily CrUX update' }),
}

export const CwvLookup = Type.Object(
  {
    action: Type.Literal('lookup'),
    ...common,
    status: Status,
    message: Type.Optional(Type.String()),
    collection_period: Type.Union([Period, Type.Null()]),
    form_factors: Type.Object({ phone: LookupFormFactor, desktop: LookupFormFactor }, { additionalProperties: false }),
    ...cacheFields,
  },
  { additionalProperties: false },
)

const Snapshot = Type.Object(
  {
    taken_on: Type.String({ format: 'date' }),
    collection_period: Type.Union([Period, Type.Null()]),
    form_factors: Type.Object({ phone: LookupFormFactor, desktop: LookupFormFactor }, { additionalProperties: false }),
  },
  { additionalProperties: false },
)

export const CwvHistory = Type.Object(
  {
    action: Type.Literal('history'),
    ...common,
    status: Status,
    message: Type.Optional(Type.String()),
    form_factors: Type.Object({ phone: HistoryFormFactor, desktop: HistoryFormFactor }, { additionalProperties: false }),
    tracked: Type.Boolean(),
    snapshots: Type.Array(Snapshot, { description: 'Daily snapshots stored by tracking (action=track), oldest first' }),
    ...cacheFields,
  },
  { additionalProperties: false },
)

export const CwvTrack = Type.Object(
  {
    action: Type.Literal('track'),
    ...common,
    tracked: Type.Literal(true),
    tracked_since: Type.String({ format: 'date-time' }),
    next_snapshot_at: Type.String({ format: 'date-time' }),
    snapshots: Type.Integer({ minimum: 0, description: 'Snapshots stored so far' }),
  },
  { additionalProperties: false },
)

export const CwvQuery = Type.Object(
  {
    action: Type.Optional(
      Type.Union([Type.Literal('lookup'), Type.Literal('history'), Type.Literal('track')], {
        default: 'lookup',
        description: 'lookup: current field data; history: weekly series plus stored snapshots; track: daily snapshots from now on',
      }),
    ),
    domain: Type.Optional(Type.String({ maxLength: 300, description: 'The domain; required in practice' })),
  },
  { additionalProperties: false },
)
