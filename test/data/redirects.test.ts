import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite } from '../sites/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { makeTeam } from '../teams/helpers.ts'
import { expectProblem, formBrowser, httpClient } from './http.ts'

// Redirects (DESIGN.md 19) over real HTTP: /v1, the site's own host (the front door), the dashboard.
const HOST = 'redirect-bakery.example'
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
const port = Number(new URL(base).port)
const owner = await makeAccount(app, 'pro')
const api = httpClient(base, owner.headers.authorization)
const stranger = httpClient(base, (await makeAccount(app, 'pro')).headers.authorization)
const site = await bakerySite(app, { accountId: owner.accountId, hostname: HOST })
expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })

/** A GET on the site's own host, as a browser sends it. */
const onSite = (path: string): Promise<{ status: number; location: string | undefined }> =>
  new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, headers: { host: HOST } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location }))
    })
      .on('error', reject)
      .end()
  })

const pageAt = async (path: string) =>
  ((await api('GET', `/v1/sites/${site.id}/pages?per_page=100`)).json.data as Array<{ id: string; path: string; locale: string }>).find(
    (p) => p.path === path && p.locale === 'en',
  )!

describe('redirects of a site', () => {
  it('a published page that moves leaves a 301 behind, answered on the site’s host once the move is published', async () => {
    const about = await pageAt('/about')
    expect((await api('PATCH', `/v1/pages/${about.id}`, { path: '/our-story' })).status).toBe(200)
    const listed = (await api('GET', `/v1/sites/${site.id}/redirects`)).json
    expect(listed.meta.total).toBe(1)
    expect(listed.data[0]).toEqual({
      id: expect.stringMatching(/^rdr_/),
      site_id: site.id,
      from: '/about',
      to: '/our-story',
      status: 301,
      created_at: expect.any(String),
    })
    // The live site still has the page at its old address until the move is published.
    expect((await onSite('/about')).status).toBe(200)
    expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })
    await eventually(async () => expect(await onSite('/about')).toEqual({ status: 301, location: '/our-story' }), 3000)
    expect(await onSite('/about?ref=flyer')).toEqual({ status: 301, location: '/our-story?ref=flyer' })
    expect((await onSite('/our-story')).status).toBe(200)
    // The same answer from the router (an injected request).
    const injected = await app.inject({ method: 'GET', url: '/about/', headers: { host: HOST } })
    expect([injected.statusCode, injected.headers['location']]).toEqual([301, '/our-story'])

    // Moving it back: the redirect now leads from the new address to the old one, never round in a circle.
    expect((await api('PATCH', `/v1/pages/${about.id}`, { path: '/about' })).status).toBe(200)
    const back = (await api('GET', `/v1/sites/${site.id}/redirects`)).json.data
    expect(back.map((r: { from: string; to: string }) => `${r.from}>${r.to}`)).toEqual(['/our-story>/about'])
    // A page that was never published moves without a redirect.
    const fresh = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/draft', title: 'Draft' })).json
    expect((await api('PATCH', `/v1/pages/${fresh.id}`, { path: '/draft-2' })).status).toBe(200)
    expect((await api('GET', `/v1/sites/${site.id}/redirects`)).json.meta.total).toBe(1)
  })

  it('owners add 301 and 302 redirects and remove them; loops are refused', async () => {
    const added = await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/winter-offer', to: '/contact', status: 302 })
    expect(added.status, added.text).toBe(201)
    expect(added.headers.get('location')).toBe(`/v1/sites/${site.id}/redirects/${added.json.id}`)
    expect((await api('GET', `/v1/sites/${site.id}/redirects/${added.json.id}`)).json).toEqual(added.json)
    const away = await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/shop', to: 'https://shop.example/bread' })
    expect(away.json.status).toBe(301)
    await eventually(async () => expect(await onSite('/winter-offer')).toEqual({ status: 302, location: '/contact' }), 3000)
    await eventually(async () => expect(await onSite('/shop')).toEqual({ status: 301, location: 'https://shop.example/bread' }), 3000)

    await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/a', to: '/b' })
    await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/b', to: '/c' })
    expectProblem(await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/c', to: '/a' }), 422, 'redirect_loop')
    expectProblem(await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/self', to: '/self?x=1' }), 422, 'redirect_loop')
    expectProblem(await api('POST', `/v1/sites/${site.id}/redirects`, { from: '/a', to: '/d' }), 409, 'redirect_from_taken')
    for (const body of [
      { from: 'no-slash', to: '/x' },
      { from: '/x', to: 'javascript:alert(1)' },
      { from: '/x', to: '/y', status: 307 },
      { from: '/x?y=1', to: '/y' },
      { from: '/_wps/forms/contact', to: '/y' },
      { from: '/x', to: '/y', extra: true },
      { from: '/x' },
    ]) {
      expectProblem(await api('POST', `/v1/sites/${site.id}/redirects`, body), 400, 'validation_failed')
    }

    expectProblem(await stranger('GET', `/v1/sites/${site.id}/redirects`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/sites/${site.id}/redirects`, { from: '/x', to: '/y' }), 404, 'not_found')
    expectProblem(await stranger('DELETE', `/v1/sites/${site.id}/redirects/${added.json.id}`), 404, 'not_found')
    const { secret } = await createApiToken(app.db, { accountId: owner.accountId, name: 'reader', scopes: ['read:sites'] })
    expectProblem(
      await httpClient(base, `Bearer ${secret}`)('POST', `/v1/sites/${site.id}/redirects`, { from: '/x', to: '/y' }),
      403,
      'insufficient_scope',
    )

    expect((await api('DELETE', `/v1/sites/${site.id}/redirects/${added.json.id}`)).status).toBe(204)
    expectProblem(await api('DELETE', `/v1/sites/${site.id}/redirects/${added.json.id}`), 404, 'not_found')
    await eventually(async () => expect((await onSite('/winter-offer')).status).toBe(404), 3000)
  })

  it('the dashboard lists, adds and removes redirects without JavaScript, each refusal beside its field', async () => {
    const team = await makeTeam(app, 'pro')
    const mine = await bakerySite(app, { accountId: team.accountId })
    const browser = formBrowser(base, team.editor.cookie)
    const screen = await browser.get(`/app/sites/${mine.id}/redirects`)
    expect(screen.status).toBe(200)
    expect(screen.body).toContain('No redirects yet.')
    expect((await browser.get(`/app/sites/${mine.id}`)).body).toContain(`href="/app/sites/${mine.id}/redirects"`)

    const added = await browser.post(`/app/sites/${mine.id}/redirects`, { from: '/old', to: '/contact', status: '301' })
    expect([added.status, added.location]).toEqual([303, `/app/sites/${mine.id}/redirects?done=redirect-added`])
    const loop = await browser.post(`/app/sites/${mine.id}/redirects`, { from: '/contact', to: '/old', status: '302' })
    expect(loop.status).toBe(422)
    expect(loop.body).toContain('in a circle')
    expect(loop.body).toContain('value="/contact"')
    expect(loop.body).toMatch(/<option value="302" selected>/)
    const bad = await browser.post(`/app/sites/${mine.id}/redirects`, { from: 'old page', to: '/x', status: '301' })
    expect(bad.status).toBe(400)
    expect(bad.body).toContain('value="old page"')
    expect(bad.body).toContain('aria-invalid="true"')

    const listed = await browser.get(`/app/sites/${mine.id}/redirects?done=redirect-added`)
    expect(listed.body).toContain('The redirect was added.')
    const remove = /action="(\/app\/sites\/[^"]+\/redirects\/rdr_[^"/]+\/delete)"/.exec(listed.body)![1]!
    const viewer = formBrowser(base, team.viewer.cookie)
    const seen = await viewer.get(`/app/sites/${mine.id}/redirects`)
    expect(seen.body).toContain('/old')
    expect(seen.body).not.toContain('Add redirect')
    expect((await viewer.post(remove)).status).toBe(403)
    expect((await browser.post(remove)).status).toBe(303)
    expect((await browser.get(`/app/sites/${mine.id}/redirects`)).body).toContain('No redirects yet.')
  })
})
