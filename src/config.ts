import { Type, type Static } from 'typebox'
import { Ajv } from 'ajv'

// One schema for the environment; the Config type is derived from it, never copied by hand.
const EnvSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], { default: 'development' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+$' })),
  API_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+$' })),
  /** Where every site gets its platform subdomain {slug}.{SITES_DOMAIN}; localhost (browsers resolve *.localhost to loopback) when unset. */
  SITES_DOMAIN: Type.String({
    pattern: '^(?=.{1,190}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$',
    default: 'localhost',
  }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(postgres(ql)?://.+|memory://)$' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 500, default: 10 }),
  DATA_DIR: Type.String({ minLength: 1, default: './.data' }),
  /** Production on the embedded database in DATA_DIR (one process, no replica): refused unless this is true. */
  ALLOW_EMBEDDED_DATABASE: Type.Boolean({ default: false }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  DATA_ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/_-]{43}=?$' })),
  DATA_ENCRYPTION_KEYS_PREVIOUS: Type.Optional(Type.String({ pattern: '^([A-Za-z0-9+/_-]{43}=?)(,[A-Za-z0-9+/_-]{43}=?)*$' })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://.+' })),
  MAIL_FROM: Type.String({ minLength: 3, default: 'Web Presence <no-reply@localhost>' }),
  AGENT_LLM_URL: Type.Optional(Type.String({ pattern: '^https?://.+' })),
  AGENT_LLM_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  AGENT_LLM_MODEL: Type.String({ minLength: 1, default: 'gpt-4o-mini' }),
  CRUX_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  CRUX_API_URL: Type.String({ pattern: '^https?://.+', default: 'https://chromeuxreport.googleapis.com/v1' }),
  PSI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  PSI_API_URL: Type.String({ pattern: '^https?://.+', default: 'https://www.googleapis.com/pagespeedonline/v5' }),
  CHROME_PATH: Type.Optional(Type.String({ minLength: 1 })),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: Type.Boolean({ default: false }),
  /** The older name of OUTBOUND_ALLOW_PRIVATE_NETWORKS, still read; either one set turns both on. */
  AUDIT_ALLOW_PRIVATE_NETWORKS: Type.Boolean({ default: false }),
  /** Resolvers for domain verification, comma-separated IP[:port] ([IPv6]:port); unset: the system's. */
  DNS_SERVERS: Type.Optional(Type.String({ pattern: '^[0-9A-Fa-f.:\\[\\]]+(,\\s*[0-9A-Fa-f.:\\[\\]]+)*$' })),
  /** Self-serve billing (DESIGN.md 16): unset, plans are set by the operator and checkout answers 503. */
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: '^(sk|rk)_[A-Za-z0-9_]+$' })),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: '^whsec_[A-Za-z0-9+/=_-]+$' })),
  /** Another base URL for Stripe's API (tests point it at a fake on loopback). */
  STRIPE_API_BASE: Type.String({ pattern: '^https?://[^/]+/?$', default: 'https://api.stripe.com' }),
  /** Checkout asks Stripe Tax to compute VAT (enable Stripe Tax in the Stripe dashboard first). */
  STRIPE_AUTOMATIC_TAX: Type.Boolean({ default: false }),
  /** Where customers reach the operator (shown where the operator changes plans, e.g. without Stripe). */
  SUPPORT_EMAIL: Type.Optional(Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$', maxLength: 254 })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  TRUST_PROXY: Type.Boolean({ default: false }),
  RATE_LIMIT_FACTOR: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, default: 1 }),
  JOB_CONCURRENCY: Type.Integer({ minimum: 0, maximum: 64, default: 4 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 10_485_760, default: 1_048_576 }),
  /** Visitor statistics of published sites (DESIGN.md 18); false counts nothing. */
  VISITOR_STATS: Type.Boolean({ default: true }),
  /** How often counted page views are written to the database: what a crash may lose at most. */
  STATS_FLUSH_INTERVAL_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: 5000 }),
  /** The media library's bytes in this S3 bucket instead of the database; credentials from the usual AWS variables. */
  MEDIA_S3_BUCKET: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' })),
  /** An S3-compatible server's URL (MinIO, R2, …); unset: AWS itself. */
  MEDIA_S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://.+' })),
  MEDIA_S3_REGION: Type.Optional(Type.String({ minLength: 1 })),
})

type Env = Static<typeof EnvSchema>

export type Config = Env & {
  BASE_URL: string
  API_URL: string
  /** 'embedded' when DATABASE_URL is unset or memory://, else 'postgres'. */
  databaseKind: 'embedded' | 'postgres'
}

export class ConfigError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
    this.problems = problems
  }
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, removeAdditional: true })
const validateEnv = ajv.compile<Env>(EnvSchema)

const hints: Record<string, string> = {
  DATABASE_URL: 'a postgres:// URL or memory://',
  DATA_ENCRYPTION_KEY: '32 random bytes in base64 (openssl rand -base64 32)',
  BASE_URL: 'an origin such as https://example.com, without a path or trailing slash',
  API_URL: 'an origin such as https://api.example.com, without a path or trailing slash',
  SITES_DOMAIN: 'a lower-case hostname such as sites.example.com, without a scheme or port',
  REDIS_URL: 'a redis:// or rediss:// URL',
  MEDIA_S3_BUCKET: 'an S3 bucket name: lower-case letters, digits, dots and hyphens',
  STRIPE_SECRET_KEY: 'a secret key of the Stripe dashboard, sk_live_… or sk_test_… (or a restricted rk_… key)',
  STRIPE_WEBHOOK_SECRET: 'the signing secret of the webhook endpoint in the Stripe dashboard, whsec_…',
  STRIPE_API_BASE: 'an origin such as https://api.stripe.com, without a path',
  DNS_SERVERS: 'comma-separated IP addresses with optional ports, e.g. 127.0.0.1:5353,[::1]:53',
}

/** The values a variable may take when its schema is a list of them. */
function allowedValues(name: string): string[] | undefined {
  const schema = (EnvSchema.properties as Record<string, { anyOf?: Array<{ const?: unknown }> }>)[name]
  const values = schema?.anyOf?.map((alternative) => alternative.const)
  return values?.every((value) => typeof value === 'string') ? (values as string[]) : undefined
}

/** Reads the environment once, at start; every bad value is named in one error. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const env: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = source[key]
    if (value !== undefined && value !== '') env[key] = value
  }
  if (!validateEnv(env)) {
    const problems = new Set<string>()
    for (const e of validateEnv.errors ?? []) {
      const name = e.instancePath.slice(1) || String(e.params['missingProperty'] ?? '')
      // A value outside a list fails each alternative; one line naming the list says it once.
      const allowed = allowedValues(name)
      if (allowed) {
        problems.add(`${name}: '${String(env[name]).slice(0, 40)}' is not one of ${allowed.join(', ')}`)
        continue
      }
      const hint = hints[name]
      problems.add(`${name}: ${e.message ?? 'is invalid'}${hint ? ` (expected ${hint})` : ''}`)
    }
    throw new ConfigError([...problems])
  }
  const baseUrl = (env['BASE_URL'] as string | undefined) ?? `http://localhost:${env['PORT'] as number}`
  const config: Config = {
    ...(env as Env),
    BASE_URL: baseUrl,
    API_URL: (env['API_URL'] as string | undefined) ?? baseUrl,
    databaseKind: !env['DATABASE_URL'] || env['DATABASE_URL'] === 'memory://' ? 'embedded' : 'postgres',
  }
  const allowPrivate = config.OUTBOUND_ALLOW_PRIVATE_NETWORKS || config.AUDIT_ALLOW_PRIVATE_NETWORKS
  config.OUTBOUND_ALLOW_PRIVATE_NETWORKS = config.AUDIT_ALLOW_PRIVATE_NETWORKS = allowPrivate
  if (config.STRIPE_SECRET_KEY && !config.STRIPE_WEBHOOK_SECRET) {
    // Without the secret no event from Stripe could be trusted: a payment would never change the plan.
    throw new ConfigError([`STRIPE_WEBHOOK_SECRET: is required with STRIPE_SECRET_KEY (expected ${hints['STRIPE_WEBHOOK_SECRET']})`])
  }
  if (config.NODE_ENV === 'production') {
    const problems: string[] = []
    if (!config.DATA_ENCRYPTION_KEY)
      problems.push(`DATA_ENCRYPTION_KEY: is required in production (expected ${hints['DATA_ENCRYPTION_KEY']})`)
    for (const name of ['OUTBOUND_ALLOW_PRIVATE_NETWORKS', 'AUDIT_ALLOW_PRIVATE_NETWORKS'] as const) {
      if (env[name] === true) problems.push(`${name}: must not be true in production`)
    }
    if (config.DATABASE_URL === 'memory://') problems.push('DATABASE_URL: memory:// loses all data on restart and is refused in production')
    else if (!config.DATABASE_URL && !config.ALLOW_EMBEDDED_DATABASE) {
      problems.push(
        'DATABASE_URL: is required in production (expected a postgres:// URL); without it the service would run on the embedded database in DATA_DIR, ' +
          'which one process only can open. Set ALLOW_EMBEDDED_DATABASE=true to run on it anyway',
      )
    }
    if (problems.length) throw new ConfigError(problems)
  }
  return config
}
