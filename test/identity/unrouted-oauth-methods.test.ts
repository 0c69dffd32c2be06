import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()

const oauthShape = (body: string) => {
  const parsed = JSON.parse(body) as Record<string, unknown>
  expect(Object.keys(parsed).sort()).toEqual(['error', 'error_description'])
  expect(typeof parsed['error_description']).toBe('string')
  return parsed
}

/**
 * Regression: a method no route serves on /oauth/* or /agent/identity* answered the site-wide
 * problem+json 404 (or a 400 after trying to parse the body). These paths speak RFC 6749 only.
 */
describe('unrouted methods on /oauth/* and /agent/identity*', () => {
  it.each([
    ['GET', '/oauth/token', 'POST'],
    ['PUT', '/oauth/token', 'POST'],
    ['DELETE', '/oauth/revoke', 'POST'],
    ['GET', '/oauth/register', 'POST'],
    ['GET', '/agent/identity', 'POST'],
    ['PATCH', '/agent/identity/claim', 'POST'],
    ['DELETE', '/oauth/authorize', 'GET, HEAD, POST'],
    ['PUT', '/agent/identity/verify', 'GET, HEAD, POST'],
  ])('%s %s answers 405 with Allow: %s in the RFC 6749 shape', async (method, url, allow) => {
    const res = await app.inject({ method: method as 'GET', url })
    expect(res.statusCode).toBe(405)
    expect(res.headers['allow']).toBe(allow)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-store')
    expect(oauthShape(res.body)['error']).toBe('method_not_allowed')
  })

  it('refuses the method before reading a body of any media type, and keeps the query out of the answer', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: '/oauth/token?code=secret-code',
      headers: { 'content-type': 'text/xml' },
      payload: '<not-parsed/>',
    })
    expect(res.statusCode).toBe(405)
    expect(res.body).not.toContain('secret-code')
    oauthShape(res.body)
  })

  it('answers a HEAD without a body', async () => {
    const res = await app.inject({ method: 'HEAD', url: '/oauth/token' })
    expect(res.statusCode).toBe(405)
    expect(res.headers['allow']).toBe('POST')
    expect(res.body).toBe('')
  })

  it.each(['/oauth/nothing-here', '/oauth/token/extra', '/agent/identity/unknown'])(
    'GET %s answers 404 not_found in the RFC 6749 shape',
    async (url) => {
      const res = await app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(404)
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(oauthShape(res.body)['error']).toBe('not_found')
    },
  )

  it('leaves the routed methods and other paths alone', async () => {
    const token = await app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'password' } })
    expect(token.statusCode).toBe(400)
    expect(oauthShape(token.body)['error']).toBe('unsupported_grant_type')
    const elsewhere = await app.inject({ method: 'GET', url: '/no-such-page' })
    expect(elsewhere.statusCode).toBe(404)
    expect(elsewhere.headers['content-type']).toContain('application/problem+json')
    const page = await app.inject({ method: 'GET', url: '/agent/identity/verify' })
    expect(page.statusCode).toBe(200)
  })
})
