import { decodeJwt } from 'jose'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Signer } from '../../src/infra/signer.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()

/**
 * Regression: a registration's `assertion_expires` was computed from a second reading of the
 * clock after signing, so a signature that crossed a second boundary gave an expiry one second
 * past the JWT's `exp`. Here the clock stands 1 ms before a full second and signing takes 5 ms
 * of it, every time: the two must still agree to the millisecond.
 */
describe('assertion expiry clock skew', () => {
  const realSigner = app.signer
  afterEach(() => {
    vi.useRealTimers()
    ;(app as { signer: Signer }).signer = realSigner
  })

  function signingAcrossASecond() {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Math.ceil(Date.now() / 1000) * 1000 + 999)
    const slow: Signer = {
      ...realSigner,
      sign: async (claims, options) => {
        const token = await realSigner.sign(claims, options)
        vi.setSystemTime(Date.now() + 5)
        return token
      },
    }
    ;(app as { signer: Signer }).signer = slow
  }

  it('POST /agent/identity states the JWT exp as assertion_expires across a second boundary', async () => {
    signingAcrossASecond()
    const res = await app.inject({ method: 'POST', url: '/agent/identity', payload: { type: 'anonymous' } })
    expect(res.statusCode).toBe(200)
    const body = res.json<{ identity_assertion: string; assertion_expires: string }>()
    const exp = decodeJwt(body.identity_assertion).exp as number
    expect(Date.parse(body.assertion_expires)).toBe(exp * 1000)
  })

  it('agrees on every one of many registrations on the real clock', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/agent/identity',
        payload: { type: 'anonymous' },
        remoteAddress: `10.0.0.${i + 1}`,
      })
      const body = res.json<{ identity_assertion: string; assertion_expires: string }>()
      expect(Date.parse(body.assertion_expires)).toBe((decodeJwt(body.identity_assertion).exp as number) * 1000)
    }
  })
})
