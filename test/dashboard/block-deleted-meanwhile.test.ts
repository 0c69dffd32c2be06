import { describe, expect, it } from 'vitest'
import { deleteBlock, insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

const hiddenOf = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1] ?? ''

// Regression: saving a block's form after the block was deleted in another tab answered 404
// "There is no such block in your account" and what was typed was lost.
describe('saving a block deleted meanwhile', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'two-tabs@example.com')
  const accountId = owner.user.accountId
  const site = await createAccountSite(app.db, accountId, { name: 'Two tabs' })
  const home = await createPage(app.db, site, { path: '/', title: 'Home & more' })
  const { cookie, form, page, audited } = await dashboardBrowser(app, owner, '/app')

  /** Opens the block's form, lets `meanwhile` happen, then saves what `typed` says. */
  async function saveAfter(blockId: string, meanwhile: () => Promise<unknown>, typed: Record<string, string>) {
    const opened = await page(`/app/blocks/${blockId}`)
    await meanwhile()
    return post(
      app,
      `/app/blocks/${blockId}`,
      cookie,
      form({
        _version: hiddenOf(opened, '_version'),
        _page: hiddenOf(opened, '_page'),
        _site: hiddenOf(opened, '_site'),
        _type: hiddenOf(opened, '_type'),
        ...typed,
        _do: 'save',
      }),
    )
  }

  it('says so in plain words, shows what was typed to copy, and links back to the page', async () => {
    const text = await insertBlock(app.db, home.id, { type: 'text', content: { markdown: 'Old words' } })
    const res = await saveAfter(text.id, () => deleteBlock(app.db, accountId, text.id), {
      markdown: 'Our new opening hours:\n\nMonday <closed>',
    })
    expect(res.statusCode).toBe(404)
    expect(res.body).toContain('<title>This block was deleted meanwhile')
    expect(res.body).toContain('Someone deleted this text block in another tab or window after you opened this form')
    expect(res.body).toMatch(
      /<label for="typed-0">[^<]+<\/label><textarea id="typed-0" readonly rows="\d+">Our new opening hours:\n\nMonday &lt;closed&gt;<\/textarea>/,
    )
    expect(res.body).toContain(`<a href="/app/pages/${home.id}">Back to the page Home &amp; more</a>`)
    expect(res.body).not.toContain('There is no such block')
  })

  it('names each field of a block with rows, and with its page gone links to the site', async () => {
    const faq = await insertBlock(app.db, home.id, { type: 'faq', content: { items: [{ question: 'Q?', answer: 'A.' }] } })
    const res = await saveAfter(faq.id, () => app.db.deleteFrom('pages').where('id', '=', home.id).execute(), {
      'items.0.question': 'Do you deliver?',
      'items.0.answer': 'Yes, on Fridays.',
    })
    expect(res.statusCode).toBe(404)
    expect(res.body).toContain('(and its page)')
    expect(res.body).toContain('>Do you deliver?</textarea>')
    expect(res.body).toContain('>Yes, on Fridays.</textarea>')
    expect(res.body).toContain(`<a href="/app/sites/${site.id}">Back to the site Two tabs</a>`)
    expect(await audited('blocks.update')).toEqual([404, 404])
  })

  it('a page deleted meanwhile: its details, and a block added to it, are shown to copy', async () => {
    const other = await createPage(app.db, site, { path: '/team', title: 'Team' })
    const opened = await page(`/app/pages/${other.id}`)
    const addForm = await page(`/app/pages/${other.id}/blocks/new?type=text`)
    await app.db.deleteFrom('pages').where('id', '=', other.id).execute()

    const saved = await post(
      app,
      `/app/pages/${other.id}`,
      cookie,
      form({
        _version: hiddenOf(opened, '_version'),
        _site: hiddenOf(opened, '_site'),
        title: 'Our team',
        path: '/team',
        locale: 'en',
        description: 'Who bakes',
      }),
    )
    expect(saved.statusCode).toBe(404)
    expect(saved.body).toContain('<title>This page was deleted meanwhile')
    expect(saved.body).toContain('Someone deleted this page in another tab or window after you opened this form')
    expect(saved.body).toContain('>Our team</textarea>')
    expect(saved.body).toContain('>Who bakes</textarea>')
    expect(saved.body).toContain(`<a href="/app/sites/${site.id}">Back to the site Two tabs</a>`)
    expect(saved.body).not.toContain('There is no such page')

    const added = await post(
      app,
      `/app/pages/${other.id}/blocks`,
      cookie,
      form({ type: 'text', _site: hiddenOf(addForm, '_site'), markdown: 'We are five.', _do: 'save' }),
    )
    expect(added.statusCode).toBe(404)
    expect(added.body).toContain('Someone deleted the page of this block')
    expect(added.body).toContain('>We are five.</textarea>')
    expect(await audited('pages.update')).toEqual([404])
    expect(await audited('blocks.create')).toEqual([404])
  })
})
