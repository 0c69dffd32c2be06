import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'
import { client, expectProblem } from './sites-helpers.ts'

const { app } = await buildTestApp()
const owner = await makeAccount(app, 'pro')
const other = await makeAccount(app, 'pro')
const api = client(app, owner.headers)
const stranger = client(app, other.headers)
const site = (await api('POST', '/v1/sites', { name: 'Pages', default_locale: 'en', locales: ['en', 'de'] })).json() as { id: string }

describe('/v1/sites/{site_id}/pages and /v1/pages/{id}', () => {
  it('creates, lists, reads, changes and deletes pages', async () => {
    const created = await api('POST', `/v1/sites/${site.id}/pages`, { path: '/about/team', title: 'Team', description: 'Who we are' })
    expect(created.statusCode, created.body).toBe(201)
    const page = created.json()
    expect(page).toEqual({
      id: expect.stringMatching(/^page_/),
      site_id: site.id,
      path: '/about/team',
      locale: 'en',
      title: 'Team',
      description: 'Who we are',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    expect(created.headers['location']).toBe(`/v1/pages/${page.id}`)
    await api('POST', `/v1/sites/${site.id}/pages`, { path: '/about/team', locale: 'de', title: 'Team' })
    const list = (await api('GET', `/v1/sites/${site.id}/pages?per_page=1`)).json()
    expect(list.meta).toEqual({ total: 2, page: 1, per_page: 1 })

    const got = await api('GET', `/v1/pages/${page.id}`)
    expect(got.json()).toEqual(page)
    const etag = got.headers['etag'] as string
    const patched = await api('PATCH', `/v1/pages/${page.id}`, { title: 'Our team' }, { 'if-match': etag })
    expect(patched.statusCode, patched.body).toBe(200)
    expect(patched.json()).toMatchObject({ title: 'Our team', path: '/about/team' })
    expectProblem(await api('PATCH', `/v1/pages/${page.id}`, { title: 'Stale' }, { 'if-match': etag }), 412, 'precondition_failed')
    expectProblem(await api('DELETE', `/v1/pages/${page.id}`, undefined, { 'if-match': etag }), 412, 'precondition_failed')
    expect((await api('DELETE', `/v1/pages/${page.id}`, undefined, { 'if-match': patched.headers['etag'] as string })).statusCode).toBe(204)
    expectProblem(await api('GET', `/v1/pages/${page.id}`), 404, 'not_found')
  })

  it('keeps a path unique per site and locale: 409 page_path_taken, nothing changed', async () => {
    const home = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/', title: 'Home' })).json()
    const contact = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/contact', title: 'Contact' })).json()
    expectProblem(await api('POST', `/v1/sites/${site.id}/pages`, { path: '/', title: 'Home again' }), 409, 'page_path_taken')
    expectProblem(await api('PATCH', `/v1/pages/${contact.id}`, { path: '/' }), 409, 'page_path_taken')
    expect((await api('GET', `/v1/pages/${contact.id}`)).json().path).toBe('/contact')
    expect((await api('GET', `/v1/pages/${home.id}`)).json().title).toBe('Home')
    expectProblem(
      await api('POST', `/v1/sites/${site.id}/pages`, { path: '/fr', locale: 'fr', title: 'Accueil' }),
      422,
      'locale_not_on_site',
    )
  })

  it('refuses bad input and other accounts', async () => {
    const page = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/bad-input', title: 'Bad' })).json()
    for (const body of [
      { path: 'no-slash', title: 'x' },
      { path: '/a/', title: 'x' },
      { path: '/../etc', title: 'x' },
      { path: '/Upper', title: 'x' },
      { path: '/x', title: 7 },
      { path: '/x', title: 'x'.repeat(201) },
      { path: '/x', title: 'x', extra: 1 },
      { path: '/x' },
    ]) {
      expectProblem(await api('POST', `/v1/sites/${site.id}/pages`, body), 400, 'validation_failed')
    }
    expectProblem(await api('PATCH', `/v1/pages/${page.id}`, { title: '' }), 400, 'validation_failed')
    expectProblem(await api('PATCH', `/v1/pages/${page.id}`, { site_id: 'site_elsewhereelsewhere00' }), 400, 'validation_failed')
    expectProblem(await api('GET', '/v1/pages/nope'), 400, 'validation_failed')
    expectProblem(await stranger('GET', `/v1/pages/${page.id}`), 404, 'not_found')
    expectProblem(await stranger('PATCH', `/v1/pages/${page.id}`, { title: 'Mine' }), 404, 'not_found')
    expectProblem(await stranger('DELETE', `/v1/pages/${page.id}`), 404, 'not_found')
    expectProblem(await stranger('GET', `/v1/sites/${site.id}/pages`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/sites/${site.id}/pages`, { path: '/intruder', title: 'x' }), 404, 'not_found')
    expect((await api('GET', `/v1/pages/${page.id}`)).json().title).toBe('Bad')
  })
})

describe('/v1/pages/{page_id}/blocks and /v1/blocks/{id}', () => {
  let made: Promise<{ id: string }> | undefined
  const blocksPage = () =>
    (made ??= api('POST', `/v1/sites/${site.id}/pages`, { path: '/blocks', title: 'Blocks' }).then((r) => r.json() as { id: string }))
  const order = async (pageId: string) =>
    (await api('GET', `/v1/pages/${pageId}/blocks`)).json().data.map((b: { type: string; position: number }) => `${b.position}:${b.type}`)

  it('adds typed blocks at the end or a position, moves and deletes them, positions dense', async () => {
    const { id } = await blocksPage()
    const hero = await api('POST', `/v1/pages/${id}/blocks`, {
      type: 'hero',
      content: { heading: 'Fresh bread', cta: { label: 'Order', href: '/order' } },
    })
    expect(hero.statusCode, hero.body).toBe(201)
    expect(hero.json()).toEqual({
      id: expect.stringMatching(/^blk_/),
      page_id: id,
      type: 'hero',
      position: 0,
      content: { heading: 'Fresh bread', cta: { label: 'Order', href: '/order' } },
    })
    expect(hero.headers['location']).toBe(`/v1/blocks/${hero.json().id}`)
    await api('POST', `/v1/pages/${id}/blocks`, { type: 'faq', content: { items: [{ question: 'Open on Sunday?', answer: 'Yes.' }] } })
    const text = (await api('POST', `/v1/pages/${id}/blocks`, { type: 'text', content: { markdown: 'Hello' }, position: 1 })).json()
    expect(await order(id)).toEqual(['0:hero', '1:text', '2:faq'])

    const etag = (await api('GET', `/v1/blocks/${text.id}`)).headers['etag'] as string
    const moved = await api('PATCH', `/v1/blocks/${text.id}`, { position: 2 }, { 'if-match': etag })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(await order(id)).toEqual(['0:hero', '1:faq', '2:text'])
    expectProblem(
      await api('PATCH', `/v1/blocks/${text.id}`, { content: { markdown: 'stale' } }, { 'if-match': etag }),
      412,
      'precondition_failed',
    )
    expectProblem(await api('PATCH', `/v1/blocks/${text.id}`, { position: 3 }), 422, 'position_out_of_range')
    expectProblem(
      await api('POST', `/v1/pages/${id}/blocks`, { type: 'text', content: { markdown: 'x' }, position: 9 }),
      422,
      'position_out_of_range',
    )
    expect((await api('DELETE', `/v1/blocks/${hero.json().id}`)).statusCode).toBe(204)
    expect(await order(id)).toEqual(['0:faq', '1:text'])
    const changed = await api('PATCH', `/v1/blocks/${text.id}`, {
      type: 'testimonial',
      content: { quote: 'Best bread in town', author: 'Ana' },
    })
    expect(changed.json()).toMatchObject({ type: 'testimonial', position: 1 })
  })

  it('keeps positions dense under concurrent requests', async () => {
    const { id } = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/busy', title: 'Busy' })).json()
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api('POST', `/v1/pages/${id}/blocks`, { type: 'text', content: { markdown: `m${i}` }, position: 0 }),
      ),
    )
    expect(made.map((r) => r.statusCode)).toEqual(Array(6).fill(201))
    const ids = made.map((r) => r.json().id as string)
    await Promise.all([
      api('PATCH', `/v1/blocks/${ids[0]}`, { position: 5 }),
      api('DELETE', `/v1/blocks/${ids[1]}`),
      api('POST', `/v1/pages/${id}/blocks`, { type: 'text', content: { markdown: 'late' } }),
      api('PATCH', `/v1/blocks/${ids[2]}`, { position: 0 }),
    ])
    const positions = (await api('GET', `/v1/pages/${id}/blocks`)).json().data.map((b: { position: number }) => b.position)
    expect(positions).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('refuses content that does not match the type, and other bad input, changing nothing', async () => {
    const { id } = await blocksPage()
    const block = (
      await api('POST', `/v1/pages/${id}/blocks`, {
        type: 'cta',
        content: { heading: 'Visit', label: 'Map', href: 'https://maps.example/' },
      })
    ).json()
    const before = (await api('GET', `/v1/pages/${id}/blocks`)).body
    for (const body of [
      { type: 'hero', content: { markdown: 'wrong type' } },
      { type: 'faq', content: { items: [{ title: 'x', text: 'y' }] } },
      { type: 'image', content: { src: 'http://insecure.example/a.png', alt: '' } },
      { type: 'cta', content: { heading: 'x', label: 'y', href: 'javascript:alert(1)' } },
      { type: 'text', content: { markdown: 'x'.repeat(20_001) } },
    ]) {
      expectProblem(await api('POST', `/v1/pages/${id}/blocks`, body), 400, 'invalid_block_content')
    }
    expectProblem(await api('PATCH', `/v1/blocks/${block.id}`, { content: { markdown: 'not a cta' } }), 400, 'invalid_block_content')
    expectProblem(await api('PATCH', `/v1/blocks/${block.id}`, { type: 'text' }), 400, 'invalid_block_content')
    for (const body of [
      { type: 'video', content: {} },
      { type: 'text', content: 'text' },
      { type: 'text', content: { markdown: 'x' }, position: -1 },
      { type: 'text', content: { markdown: 'x' }, extra: 1 },
      { content: { markdown: 'x' } },
    ]) {
      expectProblem(await api('POST', `/v1/pages/${id}/blocks`, body), 400, 'validation_failed')
    }
    expectProblem(await api('PATCH', `/v1/blocks/${block.id}`, { position: 'first' }), 400, 'validation_failed')
    expectProblem(await stranger('GET', `/v1/blocks/${block.id}`), 404, 'not_found')
    expectProblem(
      await stranger('PATCH', `/v1/blocks/${block.id}`, { content: { heading: 'Mine', label: 'x', href: '/' } }),
      404,
      'not_found',
    )
    expectProblem(await stranger('DELETE', `/v1/blocks/${block.id}`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/pages/${id}/blocks`, { type: 'text', content: { markdown: 'intruder' } }), 404, 'not_found')
    expectProblem(await stranger('GET', `/v1/pages/${id}/blocks`), 404, 'not_found')
    expect((await api('GET', `/v1/pages/${id}/blocks`)).body).toBe(before)
  })
})
