import { describe, expect, it } from 'vitest'
import { finishBuild } from '../../src/domain/sites/builds.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'
import { client, expectProblem } from './sites-helpers.ts'

// No job workers here: builds stay queued, and the tests move them on through the repository.
const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test', JOB_CONCURRENCY: '0' } })
const owner = await makeAccount(app, 'pro')
const other = await makeAccount(app, 'pro')
const api = client(app, owner.headers)
const stranger = client(app, other.headers)

async function newSite(body: Record<string, unknown> = { name: 'Bakery' }) {
  const res = await api('POST', '/v1/sites', body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as Record<string, unknown> & { id: string }
}

describe('/v1/sites', () => {
  it('creates a draft site with every field, 201 with Location and ETag', async () => {
    const res = await api('POST', '/v1/sites', {
      name: 'Bakery',
      default_locale: 'de',
      locales: ['de', 'en'],
      assistant: { enabled: true, persona: 'Sonja', lead: true },
    })
    expect(res.statusCode, res.body).toBe(201)
    const site = res.json()
    expect(site.id).toMatch(/^site_[A-Za-z0-9_-]{22}$/)
    expect(res.headers['location']).toBe(`/v1/sites/${site.id}`)
    expect(res.headers['etag']).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(site).toEqual({
      id: site.id,
      name: 'Bakery',
      domain: null,
      subdomain: 'bakery.localhost',
      status: 'draft',
      default_locale: 'de',
      locales: ['de', 'en'],
      assistant: { enabled: true, persona: 'Sonja', booking_url: null, lead: true, handoff: false },
      theme: { preset: 'fresh', brand_color: '#0b57d0', font_pair: 'system', corners: 'soft' },
      logo_media_id: null,
      navigation: null,
      preview_url: `https://platform.test/s/${site.id}/`,
      url: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      published_at: null,
    })
    const got = await api('GET', `/v1/sites/${site.id}`)
    expect(got.statusCode).toBe(200)
    expect(got.json()).toEqual(site)
    expect(got.headers['etag']).toBe(res.headers['etag'])
  })

  it('lists the account sites in the envelope of INTERFACE.md 2.4, paginated, without other accounts or the platform site', async () => {
    const account = await makeAccount(app, 'plus')
    const mine = client(app, account.headers)
    const writer = await makeAccount(app, 'pro')
    // A plus account only reads: the sites are made for it directly.
    for (const name of ['A', 'B', 'C'])
      await app.db
        .insertInto('sites')
        .values({ id: `site_${name}xxxxxxxxxxxxxxxxxxxxx`, account_id: account.accountId, name, settings: '{}' })
        .execute()
    await client(app, writer.headers)('POST', '/v1/sites', { name: 'Not theirs' })
    const res = await mine('GET', '/v1/sites?page=2&per_page=2')
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.meta).toEqual({ total: 3, page: 2, per_page: 2 })
    expect(body.data).toHaveLength(1)
    expect(body.data[0]).toMatchObject({ id: 'site_Cxxxxxxxxxxxxxxxxxxxxx', domain: null, status: 'draft' })
    const first = (await mine('GET', '/v1/sites')).json()
    expect(first.data.map((s: { name: string }) => s.name)).toEqual(['A', 'B', 'C'])
    expect(first.meta).toEqual({ total: 3, page: 1, per_page: 20 })
  })

  it('names a site by its primary active domain, else its earliest verified one, alike in the list and the read', async () => {
    const site = await newSite({ name: 'Named by domains' })
    const domain = (id: string, hostname: string, status: 'active' | 'pending', primary: boolean, verifiedAt: string | null) => ({
      id: `dom_${id}${site.id.slice(5, 15)}`,
      site_id: site.id,
      hostname: `${hostname}.${site.id.slice(5, 15).toLowerCase()}.example`,
      status,
      primary,
      verification_value: 'v',
      verified_at: verifiedAt,
    })
    const later = domain('later', 'later', 'active', false, '2026-02-01T00:00:00Z')
    const earlier = domain('earlier', 'earlier', 'active', false, '2026-01-01T00:00:00Z')
    const pending = domain('pending', 'pending', 'pending', true, null)
    await app.db.insertInto('domains').values([later, earlier, pending]).execute()
    const named = async () => {
      const listed = (await api('GET', '/v1/sites?per_page=100')).json().data.find((s: { id: string }) => s.id === site.id)
      const read = (await api('GET', `/v1/sites/${site.id}`)).json()
      expect(listed.domain).toBe(read.domain)
      expect(listed.url).toBe(read.url)
      return read.domain as string | null
    }
    // The primary flag sits on a domain not yet verified: the earliest verified active one names the site.
    expect(await named()).toBe(earlier.hostname)
    await app.db.updateTable('domains').set({ primary: false }).where('id', '=', pending.id).execute()
    await app.db.updateTable('domains').set({ primary: true }).where('id', '=', later.id).execute()
    expect(await named()).toBe(later.hostname)
  })

  it('changes a site with PATCH, honouring If-Match', async () => {
    const site = await newSite()
    const etag = (await api('GET', `/v1/sites/${site.id}`)).headers['etag'] as string
    const patched = await api(
      'PATCH',
      `/v1/sites/${site.id}`,
      { name: 'Bakery Sun', assistant: { booking_url: 'https://cal.example/book' } },
      { 'if-match': etag },
    )
    expect(patched.statusCode, patched.body).toBe(200)
    expect(patched.json()).toMatchObject({ name: 'Bakery Sun', assistant: { enabled: false, booking_url: 'https://cal.example/book' } })
    expect(patched.headers['etag']).not.toBe(etag)
    expectProblem(await api('PATCH', `/v1/sites/${site.id}`, { name: 'Stale' }, { 'if-match': etag }), 412, 'precondition_failed')
    expectProblem(await api('DELETE', `/v1/sites/${site.id}`, undefined, { 'if-match': etag }), 412, 'precondition_failed')
    expect((await api('GET', `/v1/sites/${site.id}`)).json().name).toBe('Bakery Sun')
  })

  it('refuses bad input with a 4xx problem and changes nothing', async () => {
    const site = await newSite()
    const before = (await api('GET', `/v1/sites/${site.id}`)).body
    for (const body of [
      { name: 'x', extra: true },
      { name: 5 },
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: 'x', locales: ['xx'] },
      { name: 'x', assistant: { enabled: 'yes' } },
      { name: 'x', assistant: { booking_url: 'javascript:alert(1)' } },
      { name: 'x', assistant: { unknown: 1 } },
    ]) {
      const created = await api('POST', '/v1/sites', body)
      expect(created.statusCode, JSON.stringify(body)).toBe(400)
      expectProblem(created, 400, 'validation_failed')
      expectProblem(await api('PATCH', `/v1/sites/${site.id}`, body), 400, 'validation_failed')
    }
    expectProblem(await api('PATCH', `/v1/sites/${site.id}`, {}), 400, 'validation_failed')
    expectProblem(await api('PATCH', `/v1/sites/${site.id}`, { status: 'draft' }), 400, 'validation_failed')
    expectProblem(await api('POST', '/v1/sites', { name: 'x', default_locale: 'fr', locales: ['de'] }), 422, 'invalid_locales')
    expectProblem(await api('PATCH', `/v1/sites/${site.id}`, { locales: ['de'] }), 422, 'invalid_locales')
    expectProblem(await api('PATCH', `/v1/sites/${site.id}`, { status: 'live' }), 409, 'site_not_built')
    expectProblem(await api('GET', '/v1/sites/not-an-id'), 400, 'validation_failed')
    expectProblem(await api('GET', '/v1/sites?per_page=101'), 400, 'validation_failed')
    expectProblem(await api('GET', '/v1/sites?color=red'), 400, 'validation_failed')
    expect((await api('GET', `/v1/sites/${site.id}`)).body).toBe(before)
  })

  it('answers 404 for another account site, on every route, and changes nothing', async () => {
    const site = await newSite({ name: 'Private' })
    expectProblem(await stranger('GET', `/v1/sites/${site.id}`), 404, 'not_found')
    expectProblem(await stranger('PATCH', `/v1/sites/${site.id}`, { name: 'Mine now' }), 404, 'not_found')
    expectProblem(await stranger('DELETE', `/v1/sites/${site.id}`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/sites/${site.id}/rebuild`), 404, 'not_found')
    expectProblem(await stranger('GET', `/v1/sites/${site.id}/builds`), 404, 'not_found')
    expectProblem(await stranger('GET', '/v1/sites/site_platform'), 404, 'not_found')
    expect((await api('GET', `/v1/sites/${site.id}`)).json().name).toBe('Private')
  })

  it('needs the right scope and plan', async () => {
    const reader = await makeAccount(app, 'pro', ['read:sites'])
    expectProblem(await client(app, reader.headers)('POST', '/v1/sites', { name: 'x' }), 403, 'insufficient_scope')
    const plus = await makeAccount(app, 'plus')
    expectProblem(await client(app, plus.headers)('POST', '/v1/sites', { name: 'x' }), 403, 'plan_required')
    expect((await client(app, plus.headers)('GET', '/v1/sites')).statusCode).toBe(200)
  })

  it('replays a POST with the same Idempotency-Key and body, and refuses another body', async () => {
    const key = { 'idempotency-key': `site-${Date.now()}` }
    const first = await api('POST', '/v1/sites', { name: 'Once' }, key)
    const again = await api('POST', '/v1/sites', { name: 'Once' }, key)
    expect(again.statusCode).toBe(201)
    expect(again.json().id).toBe(first.json().id)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expectProblem(await api('POST', '/v1/sites', { name: 'Twice' }, key), 422, 'idempotency_key_reused')
    const names = (await api('GET', '/v1/sites?per_page=100')).json().data.map((s: { name: string }) => s.name)
    expect(names.filter((n: string) => n === 'Once' || n === 'Twice')).toEqual(['Once'])
  })

  it('deletes a site with its content', async () => {
    const site = await newSite({ name: 'Gone' })
    await api('POST', `/v1/sites/${site.id}/pages`, { path: '/', title: 'Home' })
    const res = await api('DELETE', `/v1/sites/${site.id}`)
    expect(res.statusCode).toBe(204)
    expectProblem(await api('GET', `/v1/sites/${site.id}`), 404, 'not_found')
    expect(await app.db.selectFrom('pages').select('id').where('site_id', '=', site.id).execute()).toEqual([])
  })
})

describe('/v1/sites/{id}/rebuild, builds and rollback', () => {
  it('queues one build at a time as a site.build job and answers 202', async () => {
    const site = await newSite({ name: 'Built' })
    const [a, b] = await Promise.all([api('POST', `/v1/sites/${site.id}/rebuild`), api('POST', `/v1/sites/${site.id}/rebuild`)])
    expect(a.statusCode, a.body).toBe(202)
    expect(b.statusCode).toBe(202)
    const build = a.json()
    expect(b.json().id).toBe(build.id)
    expect(build).toEqual({
      id: build.id,
      site_id: site.id,
      status: 'queued',
      error: null,
      pages: null,
      started_at: null,
      finished_at: null,
    })
    expect(a.headers['location']).toBe(`/v1/sites/${site.id}/builds/${build.id}`)
    const jobs = await app.db.selectFrom('jobs').select('payload').where('name', '=', 'site.build').execute()
    expect(jobs.filter((j) => (j.payload as { build_id: string }).build_id === build.id)).toHaveLength(1)

    await finishBuild(app.db, build.id, { status: 'succeeded', pages: 2 })
    const live = (await api('GET', `/v1/sites/${site.id}`)).json()
    expect(live).toMatchObject({ status: 'live', published_at: expect.any(String) })
    expect((await api('GET', `/v1/sites/${site.id}/builds/${build.id}`)).json()).toMatchObject({ status: 'succeeded', pages: 2 })

    const second = (await api('POST', `/v1/sites/${site.id}/rebuild`)).json()
    expect(second.id).not.toBe(build.id)
    await finishBuild(app.db, second.id, { status: 'failed', error: 'render failed' })
    const list = (await api('GET', `/v1/sites/${site.id}/builds`)).json()
    expect(list.meta.total).toBe(2)
    expect(list.data.map((x: { id: string }) => x.id)).toEqual([second.id, build.id])

    expectProblem(await api('POST', `/v1/sites/${site.id}/rollback`, { build_id: second.id }), 409, 'build_not_rollbackable')
    expectProblem(await api('POST', `/v1/sites/${site.id}/rollback`, { build_id: 'bld_unknownunknownunknown' }), 404, 'not_found')
    expectProblem(await api('POST', `/v1/sites/${site.id}/rollback`, { build_id: 'nope' }), 400, 'validation_failed')
    expectProblem(await api('GET', `/v1/sites/${site.id}/builds/bld_unknownunknownunknown`), 404, 'not_found')
    const offline = await api('PATCH', `/v1/sites/${site.id}`, { status: 'offline' })
    expect(offline.json().status).toBe('offline')
    const back = await api('POST', `/v1/sites/${site.id}/rollback`, { build_id: build.id })
    expect(back.statusCode, back.body).toBe(200)
    expect(back.json()).toMatchObject({ id: site.id, status: 'live' })
    const other = await newSite({ name: 'Other' })
    expectProblem(await api('POST', `/v1/sites/${other.id}/rollback`, { build_id: build.id }), 404, 'not_found')
  })
})
