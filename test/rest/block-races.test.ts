import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'
import { client } from './sites-helpers.ts'

const { app } = await buildTestApp()
const owner = await makeAccount(app, 'pro')
const other = await makeAccount(app, 'pro')
const api = client(app, owner.headers)
const site = (await api('POST', '/v1/sites', { name: 'Races' })).json() as { id: string }
const page = (await api('POST', `/v1/sites/${site.id}/pages`, { path: '/', title: 'Home' })).json() as { id: string }

describe('concurrent changes of one block', () => {
  it('with the same If-Match: one change is made, every other one sees it and answers 412', async () => {
    const block = (await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'first' } })).json() as {
      id: string
    }
    const etag = (await api('GET', `/v1/blocks/${block.id}`)).headers['etag'] as string
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api('PATCH', `/v1/blocks/${block.id}`, { content: { markdown: `change ${i}` } }, { 'if-match': etag }),
      ),
    )
    const made = answers.filter((a) => a.statusCode === 200)
    expect(made).toHaveLength(1)
    expect(answers.filter((a) => a.statusCode === 412)).toHaveLength(7)
    const now = await api('GET', `/v1/blocks/${block.id}`)
    expect(now.json()).toEqual(made[0]!.json())
    expect(now.headers['etag']).toBe(made[0]!.headers['etag'])
  })

  it('moves and content changes racing on one page keep positions dense and every change', async () => {
    const ids: string[] = []
    for (let i = 0; i < 5; i++)
      ids.push(
        ((await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: `b${i}` } })).json() as { id: string }).id,
      )
    const answers = await Promise.all([
      api('PATCH', `/v1/blocks/${ids[0]}`, { position: 4 }),
      api('PATCH', `/v1/blocks/${ids[4]}`, { content: { markdown: 'b4 changed' } }),
      api('PATCH', `/v1/blocks/${ids[2]}`, { position: 0, content: { markdown: 'b2 changed' } }),
      api('DELETE', `/v1/blocks/${ids[1]}`),
      api('PATCH', `/v1/blocks/${ids[3]}`, { position: 99 }),
    ])
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 204, 422])
    const blocks = (await api('GET', `/v1/pages/${page.id}/blocks?per_page=100`)).json() as {
      data: Array<{ id: string; position: number; content: { markdown: string } }>
    }
    expect(blocks.data.map((b) => b.position)).toEqual(blocks.data.map((_, i) => i))
    const mine = blocks.data.filter((b) => ids.includes(b.id))
    expect(mine.map((b) => b.id).sort()).toEqual([ids[0], ids[2], ids[3], ids[4]].sort())
    expect(mine.find((b) => b.id === ids[4])!.content.markdown).toBe('b4 changed')
    expect(mine.find((b) => b.id === ids[2])!.content.markdown).toBe('b2 changed')
  })

  it('a change of content and its audit record commit together, one record a call, refused changes recorded as refused', async () => {
    const block = (await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'audited' } })).json() as {
      id: string
    }
    const etag = (await api('GET', `/v1/blocks/${block.id}`)).headers['etag'] as string
    const changed = await api('PATCH', `/v1/blocks/${block.id}`, { content: { markdown: 'audited again' } }, { 'if-match': etag })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await api('GET', `/v1/blocks/${block.id}`)).headers['etag']).toBe(changed.headers['etag'])
    expect((await api('PATCH', `/v1/blocks/${block.id}`, { content: { heading: 'Not text' } })).statusCode).toBe(400)
    expect((await api('PATCH', `/v1/blocks/${block.id}`, { type: 'cta', content: { markdown: 'Not a cta' } })).statusCode).toBe(400)
    const retyped = await api('PATCH', `/v1/blocks/${block.id}`, { type: 'testimonial', content: { quote: 'Good', author: 'Ana' } })
    expect(retyped.json()).toMatchObject({ type: 'testimonial', content: { quote: 'Good', author: 'Ana' } })
    await app.frame.audit.flush()
    const records = await app.db
      .selectFrom('audit_log')
      .select(['status', 'request_id'])
      .where('account_id', '=', owner.accountId)
      .where('operation', '=', 'blocks.update')
      .orderBy('id')
      .execute()
    expect(records.slice(-4).map((r) => r.status)).toEqual([200, 400, 400, 200])
    expect(new Set(records.map((r) => r.request_id)).size).toBe(records.length)
  })

  it("another account's block is not found, changed or deleted", async () => {
    const block = (await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'mine' } })).json() as {
      id: string
    }
    const stranger = client(app, other.headers)
    expect((await stranger('PATCH', `/v1/blocks/${block.id}`, { content: { markdown: 'theirs' } })).statusCode).toBe(404)
    expect((await stranger('PATCH', `/v1/blocks/${block.id}`, { position: 0 })).statusCode).toBe(404)
    expect((await stranger('DELETE', `/v1/blocks/${block.id}`)).statusCode).toBe(404)
    expect(((await api('GET', `/v1/blocks/${block.id}`)).json() as { content: { markdown: string } }).content.markdown).toBe('mine')
  })
})
