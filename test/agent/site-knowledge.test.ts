import { beforeAll, describe, expect, it } from 'vitest'
import { rollbackTo } from '../../src/domain/sites/builds.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import type { RenderPage } from '../../src/sites/render/index.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, FIXTURE_SETTINGS, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { bootstrap, chat, type Session } from './helpers.ts'

const HOST = 'bakery-assistant.example'

interface ChatBody {
  reply: string
  sources?: Array<{ title: string; url: string }>
}

/** A page about something the platform's own knowledge never mentions. */
const parkingPage = (text: string): RenderPage => ({
  path: '/visit',
  locale: 'en',
  title: 'Visiting the bakery',
  description: 'How to find Hansen Bakery in the old town.',
  updatedAt: new Date(),
  blocks: [{ type: 'text', content: { markdown: `## Parking\n\n${text}` } }],
})
const FIRST =
  'Our bakery opens at 7 am. Customers park for free in the courtyard behind the shop on Mill Lane; bicycles go in the stands by the door.'
const SECOND = 'Our bakery opens at 7 am. Customers now park in the Mill Lane garage, where the first hour is free with a receipt.'
const QUESTION = 'Where can customers park at the bakery?'

describe('the assistant of a hosted site answers from the site’s published pages', () => {
  let t: TestApp
  let site: Site
  let firstBuild: string

  const ask = async (session: Session, message: string): Promise<ChatBody> => {
    const res = await chat(t.app, session, message)
    expect(res.statusCode, res.body).toBe(200)
    return res.json() as ChatBody
  }
  const onSite = () => bootstrap(t.app, { url: `https://${HOST}/visit` })
  /** The site's answer once the change has reached the index (by NOTIFY, a moment after the commit); a fresh session each try keeps within the per-session limit. */
  const answerOnSite = async (expected: string): Promise<ChatBody> => {
    const deadline = Date.now() + 15_000
    for (;;) {
      const body = await ask(await onSite(), QUESTION)
      if (body.reply.includes(expected) || Date.now() > deadline) return body
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  beforeAll(async () => {
    t = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })
    const account = await makeAccount(t.app)
    // A customer's site answers only with the assistant add-on (DESIGN.md 12).
    await withAssistantAddOn(t.app.db, account.accountId)
    site = await bakerySite(t.app, {
      accountId: account.accountId,
      hostname: HOST,
      settings: { ...FIXTURE_SETTINGS, assistant: { enabled: true } },
      pages: [parkingPage(FIRST)],
    })
  }, SETUP_TIMEOUT_MS)

  it('knows nothing of the site’s pages before they are published', async () => {
    const body = await ask(await onSite(), QUESTION)
    expect(body.reply).not.toContain('Mill Lane')
    expect(body.sources?.some((s) => s.url === '/visit') ?? false).toBe(false)
  })

  it('answers from the published page and cites the site’s own page path', async () => {
    const build = await buildSite(t.app, site.id)
    expect(build.status).toBe('succeeded')
    firstBuild = build.id
    const body = await answerOnSite('courtyard behind the shop on Mill Lane')
    expect(body.reply).toContain('courtyard behind the shop on Mill Lane')
    expect(body.sources).toEqual([{ title: 'Visiting the bakery', url: '/visit' }])
  })

  it('keeps the site’s pages to its own assistant: the platform’s assistant does not quote them', async () => {
    const platform = await bootstrap(t.app, { url: 'https://platform.test/en/' })
    const body = await ask(platform, QUESTION)
    expect(body.reply).not.toContain('Mill Lane')
    expect(body.sources?.some((s) => s.url === '/visit') ?? false).toBe(false)
  })

  it('follows the live build: a new release replaces the answer, a rollback brings the old one back', async () => {
    const page = await t.app.db
      .selectFrom('pages')
      .select('id')
      .where('site_id', '=', site.id)
      .where('path', '=', '/visit')
      .executeTakeFirstOrThrow()
    const block = await t.app.db.selectFrom('blocks').select('id').where('page_id', '=', page.id).executeTakeFirstOrThrow()
    await t.app.db
      .updateTable('blocks')
      .set({ content: JSON.stringify({ markdown: `## Parking\n\n${SECOND}` }) })
      .where('id', '=', block.id)
      .execute()
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    expect((await answerOnSite('Mill Lane garage')).reply).toContain('Mill Lane garage')

    await rollbackTo(t.app.db, site.id, firstBuild)
    expect((await answerOnSite('courtyard behind the shop')).reply).toContain('courtyard behind the shop')
  })

  it('forgets the pages of a site no longer live, and reads them again when it is back', async () => {
    // A draft site's assistant still answers (DESIGN.md 7), but from no published page.
    await t.app.db.updateTable('sites').set({ status: 'draft' }).where('id', '=', site.id).execute()
    await eventually(async () => expect((await ask(await onSite(), QUESTION)).reply).not.toContain('Mill Lane'), 5000)
    await t.app.db.updateTable('sites').set({ status: 'live' }).where('id', '=', site.id).execute()
    const body = await answerOnSite('courtyard behind the shop')
    expect(body.reply).toContain('courtyard behind the shop')
    expect(body.sources).toEqual([{ title: 'Visiting the bakery', url: '/visit' }])
  })
})
