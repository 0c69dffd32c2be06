import { describe, expect, it } from 'vitest'
import { CallerLease, type Caller } from '../../src/mcp/tool.ts'

const caller = () => ({ app: {}, request: {}, auth: { scopes: ['mcp:read'], accountId: 'acct_x' } }) as unknown as Caller

describe('the caller lease of one MCP exchange', () => {
  it('hands its caller to callbacks until the exchange ends, then lets it go', async () => {
    const held = caller()
    const lease = new CallerLease(held)
    expect(await lease.use(async (c) => c)).toBe(held)
    lease.end()
    await expect(lease.use(async (c) => c)).rejects.toThrow('This MCP exchange is over')
    // The step-up challenge still reads the token after the end.
    expect(lease.auth).toBe(held.auth)
  })

  it('keeps the caller for a callback still running when the answer is sent, and lets it go when that one finishes', async () => {
    const held = caller()
    const lease = new CallerLease(held)
    let finish!: () => void
    const running = lease.use((c) => new Promise<Caller>((resolve) => (finish = () => resolve(c))))
    lease.end()
    // One callback still runs, so the caller is kept: another callback of the exchange gets it too.
    expect(await lease.use(async (c) => c)).toBe(held)
    finish()
    expect(await running).toBe(held)
    await expect(lease.use(async (c) => c)).rejects.toThrow('This MCP exchange is over')
  })
})
