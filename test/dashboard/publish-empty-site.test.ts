import { describe, expect, it } from 'vitest'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

// Regression: "Publish now" on a site with no pages published it ("Published (0 pages)", status
// Live) and its address answered "Page not found". The dashboard now says to add a page first.
describe('publishing a site with no pages from the dashboard', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'empty-site@example.com')
  const site = await createAccountSite(app.db, owner.user.accountId, { name: 'Empty shop' })
  const { cookie, form, audited } = await dashboardBrowser(app, owner, `/app/sites/${site.id}`)

  it('is refused next to the Publish button, in plain words, and starts no build', async () => {
    const res = await post(app, `/app/sites/${site.id}/rebuild`, cookie, form())
    expect(res.statusCode).toBe(409)
    expect(res.body).toMatch(
      /<p class="field-error" role="alert" id="publish-error"><span class="sr-only">Error: <\/span>Add a page first: [^<]*“Page not found”\. <a href="\/app\/sites\/[^"]+\/pages\/new">Add a page<\/a>, then publish\.<\/p>\s*<form method="post" action="\/app\/sites\/[^"]+\/rebuild">/,
    )
    expect(await app.db.selectFrom('builds').select('id').where('site_id', '=', site.id).execute()).toEqual([])
    expect((await app.db.selectFrom('sites').select('status').where('id', '=', site.id).executeTakeFirstOrThrow()).status).toBe('draft')
    expect(await audited('sites.rebuild')).toEqual([409])
  })
})
