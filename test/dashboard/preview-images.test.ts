import { describe, expect, it } from 'vitest'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

const imgSrc = (csp: unknown) => /(?:^|;)img-src ([^;]*)/.exec(String(csp))?.[1]

// Regression: a Markdown picture in the text block's preview showed as broken, since the
// dashboard's Content-Security-Policy allowed only its own images.
describe('pictures in the preview of a text block', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'pictures@example.com')
  const site = await createAccountSite(app.db, owner.user.accountId, { name: 'Picture shop' })
  const home = await createPage(app.db, site, { path: '/', title: 'Home' })
  const markdown = 'Our oven:\n\n![The oven](https://images.example.com/oven.jpg)'
  const text = await insertBlock(app.db, home.id, { type: 'text', content: { markdown } })
  const hero = await insertBlock(app.db, home.id, { type: 'hero', content: { heading: 'Welcome' } })
  const { cookie, form } = await dashboardBrowser(app, owner, `/app/blocks/${text.id}`)

  it('may load from https (and data:) on the pages that preview the text, and nowhere else', async () => {
    const saved = await app.inject({ method: 'GET', url: `/app/blocks/${text.id}`, headers: { cookie } })
    expect(saved.body).toContain('<img src="https://images.example.com/oven.jpg" alt="The oven"')
    expect(imgSrc(saved.headers['content-security-policy'])).toBe("'self' https: data:")
    const preview = await post(
      app,
      `/app/blocks/${text.id}`,
      cookie,
      form({ markdown: '![Bread](https://cdn.example.org/bread.png)', _do: 'preview' }),
    )
    expect(preview.statusCode).toBe(200)
    expect(preview.body).toContain('https://cdn.example.org/bread.png')
    expect(imgSrc(preview.headers['content-security-policy'])).toBe("'self' https: data:")
    const added = await post(
      app,
      `/app/pages/${home.id}/blocks`,
      cookie,
      form({ type: 'text', markdown: '![x](https://a.example/x.png)', _do: 'preview' }),
    )
    expect(imgSrc(added.headers['content-security-policy'])).toBe("'self' https: data:")
    // The page's list of blocks and the question before deleting show the text as it looks too.
    for (const url of [`/app/pages/${home.id}`, `/app/blocks/${text.id}/delete`]) {
      const res = await app.inject({ method: 'GET', url, headers: { cookie } })
      expect(res.body, url).toContain('<img src="https://images.example.com/oven.jpg"')
      expect(imgSrc(res.headers['content-security-policy']), url).toBe("'self' https: data:")
    }
    // The rest of the dashboard keeps its own images only; nothing else of the policy is loosened.
    const plain = await createPage(app.db, site, { path: '/plain', title: 'Plain' })
    await insertBlock(app.db, plain.id, { type: 'hero', content: { heading: 'Hello' } })
    for (const url of [
      '/app',
      `/app/sites/${site.id}`,
      `/app/pages/${plain.id}`,
      `/app/blocks/${hero.id}`,
      `/app/blocks/${hero.id}/delete`,
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: { cookie } })
      expect(imgSrc(res.headers['content-security-policy']), url).toBe("'self' data:")
    }
    const policy = (csp: unknown) =>
      String(csp)
        .split(';')
        .filter((d) => !d.startsWith('img-src'))
        .join(';')
    expect(policy(saved.headers['content-security-policy'])).toBe(
      policy((await app.inject({ method: 'GET', url: '/app', headers: { cookie } })).headers['content-security-policy']),
    )
  })
})
