import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { latestCode } from './helpers.ts'

// Behind TLS (BASE_URL https), as in production.
const { app } = await buildTestApp({ env: { BASE_URL: 'https://presence.example' } })

const cookiesOf = (setCookie: string | string[] | undefined) => (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [])
const pair = (line: string) => line.split(';')[0] as string

describe('browser cookies on https', () => {
  it('are Secure, HttpOnly, SameSite=Lax and __Host- prefixed, for the CSRF secret and the session', async () => {
    const form = await app.inject({ method: 'GET', url: '/signin?return_to=/signin/done' })
    const [csrfCookie] = cookiesOf(form.headers['set-cookie'])
    expect(csrfCookie).toMatch(/^__Host-wps_csrf=/)
    expect(csrfCookie).toMatch(/; Path=\/(;|$)/)
    expect(csrfCookie).toMatch(/; HttpOnly/)
    expect(csrfCookie).toMatch(/; Secure/)
    expect(csrfCookie).toMatch(/; SameSite=Lax/)
    const token = cheerio.load(form.body)('input[name="_csrf"]').attr('value') as string

    const sent = await app.inject({
      method: 'POST',
      url: '/signin',
      headers: { cookie: pair(csrfCookie!), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: token, email: 'tls@example.com', return_to: '/signin/done' }).toString(),
    })
    expect(sent.statusCode).toBe(303)
    const challenge = new URL(sent.headers['location'] as string, 'https://presence.example').searchParams.get('challenge') as string
    const signedIn = await app.inject({
      method: 'POST',
      url: '/signin/code',
      headers: { cookie: pair(csrfCookie!), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: token, challenge, code: await latestCode(app, 'tls@example.com') }).toString(),
    })
    expect(signedIn.statusCode).toBe(303)
    expect(signedIn.headers['location']).toBe('/signin/done')
    const session = cookiesOf(signedIn.headers['set-cookie']).find((c) => c.startsWith('__Host-wps_session='))
    expect(session).toMatch(/; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Lax$/)

    // Signing out ends the session on the server, not only in the browser.
    const cookie = `${pair(csrfCookie!)}; ${pair(session!)}`
    const done = await app.inject({ method: 'GET', url: '/signin/done', headers: { cookie } })
    expect(done.body).toContain('signed in as tls@example.com')
    const signOut = await app.inject({
      method: 'POST',
      url: '/signout',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: cheerio.load(done.body)('form[action="/signout"] input[name="_csrf"]').attr('value') as string,
      }).toString(),
    })
    expect(signOut.statusCode).toBe(200)
    expect(cookiesOf(signOut.headers['set-cookie']).some((c) => /^__Host-wps_session=;/.test(c))).toBe(true)
    expect((await app.inject({ method: 'GET', url: '/signin/done', headers: { cookie } })).body).toContain('not signed in')
  })

  it('never redirects after sign-in to another origin', async () => {
    const form = await app.inject({ method: 'GET', url: '/signin?return_to=//evil.example/x' })
    expect(cheerio.load(form.body)('input[name="return_to"]').attr('value')).toBe('/signin/done')
    const other = await app.inject({ method: 'GET', url: '/signin?return_to=https://evil.example/x' })
    expect(cheerio.load(other.body)('input[name="return_to"]').attr('value')).toBe('/signin/done')
  })
})
