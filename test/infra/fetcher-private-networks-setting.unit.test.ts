import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env)
    return []
  } catch (error) {
    return (error as ConfigError).problems
  }
}

describe('one setting for outbound fetches to private networks', () => {
  it('is off unless OUTBOUND_ALLOW_PRIVATE_NETWORKS or its alias AUDIT_ALLOW_PRIVATE_NETWORKS is set', () => {
    expect(loadConfig({}).OUTBOUND_ALLOW_PRIVATE_NETWORKS).toBe(false)
    expect(loadConfig({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' })).toMatchObject({
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: true,
      AUDIT_ALLOW_PRIVATE_NETWORKS: true,
    })
    expect(loadConfig({ AUDIT_ALLOW_PRIVATE_NETWORKS: 'true' })).toMatchObject({
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: true,
      AUDIT_ALLOW_PRIVATE_NETWORKS: true,
    })
    expect(loadConfig({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' }).OUTBOUND_ALLOW_PRIVATE_NETWORKS).toBe(false)
  })

  it('is refused in production under either name', () => {
    const base = { NODE_ENV: 'production', DATA_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), DATABASE_URL: 'postgres://db/x' }
    expect(problemsOf(base)).toEqual([])
    expect(problemsOf({ ...base, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' })).toEqual([
      'OUTBOUND_ALLOW_PRIVATE_NETWORKS: must not be true in production',
    ])
    expect(problemsOf({ ...base, AUDIT_ALLOW_PRIVATE_NETWORKS: 'true' })).toEqual([
      'AUDIT_ALLOW_PRIVATE_NETWORKS: must not be true in production',
    ])
    expect(problemsOf({ ...base, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'maybe' })[0]).toMatch(/^OUTBOUND_ALLOW_PRIVATE_NETWORKS: /)
  })

  it('decides what the fetcher may reach: loopback only with the setting on', async () => {
    const closed = createSafeFetcher({ allowPrivateNetworks: loadConfig({}).OUTBOUND_ALLOW_PRIVATE_NETWORKS, timeoutMs: 2000 })
    const open = createSafeFetcher({
      allowPrivateNetworks: loadConfig({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }).OUTBOUND_ALLOW_PRIVATE_NETWORKS,
      timeoutMs: 2000,
    })
    try {
      const code = (fetcher: typeof closed) =>
        fetcher.fetch('http://127.0.0.1:9/').then(
          () => 'fetched',
          (e: { code?: string }) => e.code,
        )
      expect(await code(closed)).toBe('invalid_url')
      // Let through by the policy: what stops it now is the closed port.
      expect(await code(open)).toBe('connection_failed')
    } finally {
      await closed.close()
      await open.close()
    }
  })
})
