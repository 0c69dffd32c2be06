import { expect } from 'vitest'
import { newId, randomToken, sha256Hex } from '../../src/infra/crypto.ts'
import { findOrCreateUser, loadEmailHasher } from '../../src/identity/stores/users.ts'
import type { TestApp } from '../helpers/app.ts'

type App = TestApp['app']

/** A person with a browser session: the cookie the sign-in would have set. */
export async function signedIn(app: App, email: string) {
  const hash = await loadEmailHasher(app.db, app.keyring)
  const user = await findOrCreateUser(app.db, app.keyring, hash(email), email)
  const token = randomToken(32)
  await app.db
    .insertInto('web_sessions')
    .values({ id: newId('ses'), token_hash: sha256Hex(token), user_id: user.id, expires_at: new Date(Date.now() + 3_600_000) })
    .execute()
  return { user, cookie: `wps_session=${token}` }
}

/** GETs a page as the person and keeps the CSRF cookie and the form token it carries. */
export async function formToken(app: App, cookie: string, url: string) {
  const res = await app.inject({ method: 'GET', url, headers: { cookie } })
  expect(res.statusCode, res.body).toBe(200)
  const csrfCookie = String(res.headers['set-cookie'] ?? '').split(';')[0]
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1]
  expect(token).toBeTruthy()
  return { cookie: csrfCookie ? `${cookie}; ${csrfCookie}` : cookie, token: token!, body: res.body }
}

/** A plain form post, as a browser without JavaScript sends it (repeated names for checkboxes). */
export const post = (app: App, url: string, cookie: string, form: Record<string, string | string[]>) => {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) body.append(name, v)
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  })
}

export const get = (app: App, url: string, cookie: string) => app.inject({ method: 'GET', url, headers: { cookie } })

/**
 * A signed-in person's browser on the dashboard, its CSRF token taken from `url`: `form` fills a
 * post with the token, `page` GETs a page that must answer 200, `audited` lists the statuses of
 * the dashboard's audit records of one operation of the person's account, oldest first.
 */
export async function dashboardBrowser(app: App, person: { user: { accountId: string }; cookie: string }, url: string) {
  const { cookie, token } = await formToken(app, person.cookie, url)
  const form = (fields: Record<string, string | string[]> = {}) => ({ _csrf: token, ...fields })
  const page = async (path: string) => {
    const res = await get(app, path, cookie)
    expect(res.statusCode, path).toBe(200)
    return res.body
  }
  const audited = async (operation: string) =>
    (
      await app.db
        .selectFrom('audit_log')
        .select('status')
        .where('account_id', '=', person.user.accountId)
        .where('operation', '=', `dashboard.${operation}`)
        .orderBy('id')
        .execute()
    ).map((r) => r.status)
  return { cookie, form, page, audited }
}

/** The secret a page shows once. */
export const shownSecret = (body: string) => /<output class="secret" id="secret">([^<]+)<\/output>/.exec(body)?.[1]
