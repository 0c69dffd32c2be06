import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.ts'

const key = Buffer.alloc(32, 1).toString('base64')

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('configuration', () => {
  it('fills the documented defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      BASE_URL: 'http://localhost:3000',
      API_URL: 'http://localhost:3000',
      DATA_DIR: './.data',
      NODE_ENV: 'development',
      AUDIT_ALLOW_PRIVATE_NETWORKS: false,
      databaseKind: 'embedded',
    })
  })

  it('derives BASE_URL from PORT and API_URL from BASE_URL', () => {
    expect(loadConfig({ PORT: '4000' }).BASE_URL).toBe('http://localhost:4000')
    expect(loadConfig({ BASE_URL: 'https://example.com' }).API_URL).toBe('https://example.com')
  })

  it('coerces numbers and booleans from strings', () => {
    const config = loadConfig({ PORT: '8080', AUDIT_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_FACTOR: '2.5' })
    expect(config.PORT).toBe(8080)
    expect(config.AUDIT_ALLOW_PRIVATE_NETWORKS).toBe(true)
    expect(config.RATE_LIMIT_FACTOR).toBe(2.5)
  })

  it('names every bad variable in one error', () => {
    const problems = problemsOf({ PORT: 'eighty', DATABASE_URL: 'mysql://x', DATA_ENCRYPTION_KEY: 'short', BASE_URL: 'example.com/' })
    expect(problems).toHaveLength(4)
    expect(problems.find((p) => p.startsWith('PORT:'))).toBeDefined()
    expect(problems.find((p) => p.startsWith('DATABASE_URL:'))).toMatch(/postgres:\/\/ URL or memory:\/\//)
    expect(problems.find((p) => p.startsWith('DATA_ENCRYPTION_KEY:'))).toMatch(/openssl rand -base64 32/)
    expect(problems.find((p) => p.startsWith('BASE_URL:'))).toBeDefined()
  })

  it('names the allowed values of a listed variable once', () => {
    expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual([
      "LOG_LEVEL: 'verbose' is not one of fatal, error, warn, info, debug, trace, silent",
    ])
    expect(problemsOf({ NODE_ENV: 'prod', LOG_LEVEL: 'info' })).toEqual(["NODE_ENV: 'prod' is not one of development, production, test"])
  })

  it('knows a postgres URL from the embedded database', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).databaseKind).toBe('postgres')
    expect(loadConfig({ DATABASE_URL: 'memory://' }).databaseKind).toBe('embedded')
  })

  it('refuses to start in production on development secrets', () => {
    const problems = problemsOf({ NODE_ENV: 'production', AUDIT_ALLOW_PRIVATE_NETWORKS: 'true', DATABASE_URL: 'memory://' })
    expect(problems.some((p) => p.startsWith('DATA_ENCRYPTION_KEY: is required in production'))).toBe(true)
    expect(problems.some((p) => p.startsWith('AUDIT_ALLOW_PRIVATE_NETWORKS'))).toBe(true)
    expect(problems.some((p) => p.startsWith('DATABASE_URL'))).toBe(true)
  })

  it('refuses the embedded database in production unless it is allowed explicitly', () => {
    const problems = problemsOf({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^DATABASE_URL: is required in production .*ALLOW_EMBEDDED_DATABASE=true/)
    const allowed = loadConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key, ALLOW_EMBEDDED_DATABASE: 'true' })
    expect(allowed.databaseKind).toBe('embedded')
    // memory:// stays refused: it loses everything on restart.
    expect(
      problemsOf({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key, DATABASE_URL: 'memory://', ALLOW_EMBEDDED_DATABASE: 'true' }),
    ).toEqual(['DATABASE_URL: memory:// loses all data on restart and is refused in production'])
    // Outside production the embedded database needs nothing.
    expect(loadConfig({ NODE_ENV: 'development' }).databaseKind).toBe('embedded')
  })

  it('starts in production with a real key', () => {
    expect(loadConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key, DATABASE_URL: 'postgres://db/x' }).NODE_ENV).toBe('production')
  })

  it('ignores unrelated and empty variables', () => {
    expect(loadConfig({ HOME: '/root', PORT: '' }).PORT).toBe(3000)
  })
})
