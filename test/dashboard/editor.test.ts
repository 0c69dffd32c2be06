import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, formToken, get, post, signedIn } from './helpers.ts'
import { until } from '../helpers/polling.ts'

const SITES_DOMAIN = 'sites.test'

/** The version a form carries, as the browser would send it back. */
const versionIn = (body: string, action: string) =>
  cheerio.load(body)(`form[action="${action}"] input[name="_version"]`).first().attr('value')

/** The error shown next to a field, found through the field's aria-describedby, as assistive technology finds it. */
function fieldError(body: string, id: string): string | undefined {
  const $ = cheerio.load(body)
  const control = $(`#${id}`)
  if (control.attr('aria-invalid') !== 'true' && !control.is('fieldset')) return undefined
  const ids = (control.attr('aria-describedby') ?? '').split(' ')
  const error = ids.find((ref) => ref.endsWith('-error'))
  return error
    ? $(`#${error}`)
        .text()
        .replace(/^Error: /, '')
    : undefined
}

// The editor as a browser without JavaScript uses it: plain form posts with the CSRF token,
// answered by a redirect to the changed thing, or by the same form again with the input kept and
// each refused field named.
describe('dashboard editor over plain form posts', async () => {
  const { app } = await buildTestApp({ env: { SITES_DOMAIN } })
  const owner = await signedIn(app, 'baker@example.com')
  const accountId = owner.user.accountId
  const { cookie, form, page, audited } = await dashboardBrowser(app, owner, '/app/start')
  const sitesOf = () => app.db.selectFrom('sites').selectAll().where('account_id', '=', accountId).execute()
  let siteId = ''
  let pageId = ''

  it('sends /app/start through the sign-in, then asks a person without a site to name one', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/app/start' })
    expect(anonymous.statusCode).toBe(303)
    expect(anonymous.headers['location']).toBe('/signin?return_to=%2Fapp%2Fstart')
    const start = await page('/app/start')
    expect(start).toContain('Tell us about your business')
    expect(start).toMatch(/<label for="f-name">Name of your site<\/label>/)
  })

  it('refuses a site without a name or language on the same form, the input kept and each field named', async () => {
    const res = await post(app, '/app/sites', cookie, form({ name: '   ', default_locale: 'fr' }))
    expect(res.statusCode).toBe(400)
    expect(fieldError(res.body, 'f-name')).toBe('Fill this in.')
    expect(fieldError(res.body, 'f-locales')).toBe('Choose at least one language.')
    expect(res.body).toContain('There are 2 problems')
    expect(res.body).toContain('<a href="#f-name">')
    expect(cheerio.load(res.body)('#f-default_locale option[selected]').attr('value')).toBe('fr')
    const wrongDefault = await post(app, '/app/sites', cookie, form({ name: 'Bakery', locales: ['en', 'de'], default_locale: 'fr' }))
    expect(wrongDefault.statusCode).toBe(400)
    expect(fieldError(wrongDefault.body, 'f-default_locale')).toMatch(/Choose one of the languages you ticked/)
    expect(cheerio.load(wrongDefault.body)('#f-name').attr('value')).toBe('Bakery')
    expect(await sitesOf()).toEqual([])
    expect(await audited('sites.create')).toEqual([400, 400])
  })

  it('creates the first site from its name and languages and opens the editor on it; /app/start opens it from then on', async () => {
    const res = await post(app, '/app/sites', cookie, form({ name: 'Sonnen <Bäckerei>', locales: ['en', 'de'], default_locale: 'en' }))
    expect(res.statusCode, res.body).toBe(303)
    const [site] = await sitesOf()
    siteId = site!.id
    expect(res.headers['location']).toBe(`/app/sites/${siteId}?done=site-created`)
    expect(site).toMatchObject({
      name: 'Sonnen <Bäckerei>',
      slug: 'sonnen-backerei',
      default_locale: 'en',
      locales: ['en', 'de'],
      status: 'draft',
    })
    const home = await page(`/app/sites/${siteId}?done=site-created`)
    expect(home).toContain('Your site was created.')
    expect(home).toContain('sonnen-backerei.sites.test')
    expect(home).toContain('Sonnen &lt;Bäckerei&gt;')
    expect(home).toContain('Start with the home page')
    const again = await get(app, '/app/start', cookie)
    expect(again.statusCode).toBe(303)
    expect(again.headers['location']).toBe(`/app/sites/${siteId}`)
    expect(await page('/app/sites')).toContain('sonnen-backerei.sites.test')
    expect(await audited('sites.create')).toEqual([400, 400, 303])
  })

  it('adds pages, refusing a taken or malformed address on the field with the input kept', async () => {
    const form0 = await page(`/app/sites/${siteId}/pages/new`)
    expect(cheerio.load(form0)('#f-path').attr('value')).toBe('/')
    const home = await post(
      app,
      `/app/sites/${siteId}/pages`,
      cookie,
      form({ title: 'Welcome', path: '/', locale: 'en', description: 'Fresh bread every day.' }),
    )
    expect(home.statusCode, home.body).toBe(303)
    pageId = /\/app\/pages\/(page_[A-Za-z0-9_-]+)/.exec(String(home.headers['location']))![1]!
    const taken = await post(
      app,
      `/app/sites/${siteId}/pages`,
      cookie,
      form({ title: 'Home again', path: '/', locale: 'en', description: '' }),
    )
    expect(taken.statusCode).toBe(409)
    expect(fieldError(taken.body, 'f-path')).toMatch(/Another page in this language has this address/)
    expect(cheerio.load(taken.body)('#f-title').attr('value')).toBe('Home again')
    const malformed = await post(
      app,
      `/app/sites/${siteId}/pages`,
      cookie,
      form({ title: 'Opening hours', path: 'opening hours', locale: 'en', description: '' }),
    )
    expect(malformed.statusCode).toBe(400)
    expect(fieldError(malformed.body, 'f-path')).toMatch(/lower-case letters, digits and hyphens/)
    // A typed address gets its slash and lower case; a German page goes under /de/.
    const hours = await post(
      app,
      `/app/sites/${siteId}/pages`,
      cookie,
      form({ title: 'Öffnungszeiten', path: 'Oeffnungszeiten/', locale: 'de', description: '' }),
    )
    expect(hours.statusCode, hours.body).toBe(303)
    const pages = await app.db.selectFrom('pages').select(['path', 'locale']).where('site_id', '=', siteId).orderBy('locale').execute()
    expect(pages).toEqual([
      { path: '/oeffnungszeiten', locale: 'de' },
      { path: '/', locale: 'en' },
    ])
    const list = await page(`/app/sites/${siteId}`)
    expect(list).toContain('<h3>German (Deutsch)</h3>')
    expect(list).toContain('<code>/de/oeffnungszeiten</code>')
  })

  it('adds a block of every type through its own form', async () => {
    const contents: Record<string, Record<string, string>> = {
      hero: {
        heading: 'Bread from the wood oven',
        subheading: 'Since 1987',
        'cta.label': 'Visit us',
        'cta.href': '/contact',
        'image.src': 'https://img.example/oven.jpg',
        'image.alt': 'Our oven',
      },
      text: { markdown: '## Our bread\n\nBaked **every** morning.' },
      image: { src: 'https://img.example/shop.jpg', alt: 'The shop', caption: 'Market Street 12' },
      features: {
        heading: 'Why us',
        'items.0.title': 'Sourdough',
        'items.0.text': 'Three days of rest.',
        'items.1.title': '',
        'items.1.text': '',
        'items.2.title': 'Organic',
        'items.2.text': 'Flour from the region.',
      },
      faq: { 'items.0.question': 'Do you deliver?', 'items.0.answer': 'Within the city.' },
      cta: { heading: 'Order a cake', text: 'Two days ahead.', label: 'Call us', href: 'tel:+4940123' },
      contact_form: { heading: 'Write to us', submit_label: 'Send' },
      testimonial: { quote: 'Best rye in town.', author: 'Jana', role: 'Regular customer' },
    }
    for (const [type, fields] of Object.entries(contents)) {
      expect((await get(app, `/app/pages/${pageId}/blocks/new?type=${type}`, cookie)).statusCode, type).toBe(200)
      const res = await post(app, `/app/pages/${pageId}/blocks`, cookie, form({ type, ...fields }))
      expect(res.statusCode, `${type}: ${res.body}`).toBe(303)
      expect(res.headers['location']).toMatch(new RegExp(`^/app/pages/${pageId}\\?done=block-added#block-blk_`))
    }
    const blocks = await app.db
      .selectFrom('blocks')
      .select(['type', 'position', 'content'])
      .where('page_id', '=', pageId)
      .orderBy('position')
      .execute()
    expect(blocks.map((b) => b.type)).toEqual(Object.keys(contents))
    expect(blocks[0]!.content).toEqual({
      heading: 'Bread from the wood oven',
      subheading: 'Since 1987',
      cta: { label: 'Visit us', href: '/contact' },
      image: { src: 'https://img.example/oven.jpg', alt: 'Our oven' },
    })
    // The empty row in the middle is dropped, not refused.
    expect(blocks[3]!.content).toEqual({
      heading: 'Why us',
      items: [
        { title: 'Sourdough', text: 'Three days of rest.' },
        { title: 'Organic', text: 'Flour from the region.' },
      ],
    })
    expect(blocks[4]!.content).toEqual({ items: [{ question: 'Do you deliver?', answer: 'Within the city.' }] })
    const view = await page(`/app/pages/${pageId}`)
    // The text block shown as it will be published (the same Markdown renderer: headings from h2).
    expect(view).toContain('<div class="rendered"><h2>Our bread</h2>\n<p>Baked <strong>every</strong> morning.</p>')
    expect(await audited('blocks.create')).toEqual(Array(8).fill(303))
  })

  it('refuses wrong block content on the form, naming each wrong field, and stores nothing', async () => {
    const before = await app.db.selectFrom('blocks').select('id').where('page_id', '=', pageId).execute()
    const res = await post(
      app,
      `/app/pages/${pageId}/blocks`,
      cookie,
      form({
        type: 'hero',
        heading: '',
        'cta.label': 'Book',
        'cta.href': 'www.example.com',
        'image.src': 'javascript:alert(1)',
        'image.alt': '',
      }),
    )
    expect(res.statusCode).toBe(400)
    expect(fieldError(res.body, 'f-heading')).toBe('Fill this in.')
    expect(fieldError(res.body, 'f-cta-href')).toMatch(/^Start the link with https:\/\//)
    expect(fieldError(res.body, 'f-image-src')).toMatch(/^Use a picture address/)
    expect(res.body).toContain('There are 3 problems')
    const $ = cheerio.load(res.body)
    expect($('#f-cta-href').attr('value')).toBe('www.example.com')
    expect($('#f-cta-label').attr('value')).toBe('Book')
    const items = await post(
      app,
      `/app/pages/${pageId}/blocks`,
      cookie,
      form({ type: 'faq', 'items.0.question': 'Open on Sunday?', 'items.0.answer': '' }),
    )
    expect(items.statusCode).toBe(400)
    expect(fieldError(items.body, 'f-items-0-answer')).toBe('Fill this in.')
    expect(items.body).toContain('Question 1, Answer: Fill this in.')
    const none = await post(app, `/app/pages/${pageId}/blocks`, cookie, form({ type: 'features', 'items.0.title': '', 'items.0.text': '' }))
    expect(none.statusCode).toBe(400)
    expect(fieldError(none.body, 'f-items')).toBe('Add at least one feature.')
    expect(await app.db.selectFrom('blocks').select('id').where('page_id', '=', pageId).execute()).toEqual(before)
  })

  it('adds and removes list items by submit buttons, the typed rows kept, nothing saved until Save', async () => {
    const fields = {
      type: 'faq',
      heading: 'FAQ',
      'items.0.question': 'First?',
      'items.0.answer': 'One.',
      'items.1.question': 'Second?',
      'items.1.answer': 'Two.',
    }
    const added = await post(app, `/app/pages/${pageId}/blocks`, cookie, form({ ...fields, _do: 'add' }))
    expect(added.statusCode).toBe(200)
    let $ = cheerio.load(added.body)
    expect($('input[name="items.1.question"]').attr('value')).toBe('Second?')
    expect($('input[name="items.2.question"]').attr('value')).toBe('')
    expect($('button[value="remove:2"]').text()).toBe('Remove question 3')
    const removed = await post(app, `/app/pages/${pageId}/blocks`, cookie, form({ ...fields, _do: 'remove:0' }))
    $ = cheerio.load(removed.body)
    expect($('input[name="items.0.question"]').attr('value')).toBe('Second?')
    expect($('input[name="items.1.question"]').length).toBe(0)
    expect(await app.db.selectFrom('blocks').select('id').where('page_id', '=', pageId).where('type', '=', 'faq').execute()).toHaveLength(1)
    // The first submit button of the form is a save button, so Enter in a field saves.
    expect($('form[novalidate] button[type="submit"]').first().attr('value')).toBe('save')
  })

  it('previews typed Markdown without saving it', async () => {
    const text = await app.db
      .selectFrom('blocks')
      .selectAll()
      .where('page_id', '=', pageId)
      .where('type', '=', 'text')
      .executeTakeFirstOrThrow()
    const res = await post(
      app,
      `/app/blocks/${text.id}`,
      cookie,
      form({ markdown: '# New title\n\n<script>x</script> and [a link](javascript:alert(1))', _do: 'preview' }),
    )
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('How it will look (not saved yet)')
    expect(res.body).toContain('<h2>New title</h2>')
    expect(res.body).toContain('&lt;script&gt;x&lt;/script&gt;')
    expect(res.body).not.toContain('href="javascript:')
    expect((await app.db.selectFrom('blocks').select('content').where('id', '=', text.id).executeTakeFirstOrThrow()).content).toEqual({
      markdown: '## Our bread\n\nBaked **every** morning.',
    })
  })

  it('refuses a stale block form, overwriting nothing, and shows what is saved now', async () => {
    const text = await app.db
      .selectFrom('blocks')
      .selectAll()
      .where('page_id', '=', pageId)
      .where('type', '=', 'text')
      .executeTakeFirstOrThrow()
    const tabA = versionIn(await page(`/app/blocks/${text.id}`), `/app/blocks/${text.id}`)!
    const tabB = versionIn(await page(`/app/blocks/${text.id}`), `/app/blocks/${text.id}`)!
    expect(tabA).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    const saved = await post(app, `/app/blocks/${text.id}`, cookie, form({ _version: tabB, markdown: 'Written in tab B.' }))
    expect(saved.statusCode, saved.body).toBe(303)
    const stale = await post(app, `/app/blocks/${text.id}`, cookie, form({ _version: tabA, markdown: 'Written in tab A.' }))
    expect(stale.statusCode).toBe(412)
    expect(stale.body).toContain('Someone changed this block in another tab or window')
    const $ = cheerio.load(stale.body)
    expect($('#f-markdown').text()).toBe('Written in tab A.')
    expect($('#f-markdown-saved').text()).toBe('Saved meanwhile: Written in tab B.')
    expect($('#f-markdown').attr('aria-describedby')).toContain('f-markdown-saved')
    expect((await app.db.selectFrom('blocks').select('content').where('id', '=', text.id).executeTakeFirstOrThrow()).content).toEqual({
      markdown: 'Written in tab B.',
    })
    // The form now carries the current version: saving again is a deliberate choice.
    const again = await post(
      app,
      `/app/blocks/${text.id}`,
      cookie,
      form({ _version: versionIn(stale.body, `/app/blocks/${text.id}`)!, markdown: 'Written in tab A.' }),
    )
    expect(again.statusCode).toBe(303)
    expect(await audited('blocks.update')).toEqual([303, 412, 303])
  })

  it('moves blocks up and down and deletes one after asking, refusing a move from a stale page', async () => {
    const order = async () =>
      (await app.db.selectFrom('blocks').select(['id', 'type']).where('page_id', '=', pageId).orderBy('position').execute()).map(
        (b) => b.type,
      )
    const body = await page(`/app/pages/${pageId}`)
    const $ = cheerio.load(body)
    const image = await app.db
      .selectFrom('blocks')
      .select('id')
      .where('page_id', '=', pageId)
      .where('type', '=', 'image')
      .executeTakeFirstOrThrow()
    const up = $(`#block-${image.id} form[action="/app/blocks/${image.id}/move"]`).first()
    expect(up.find('button').text()).toBe('Move up picture block 3')
    const version = up.find('input[name="_version"]').attr('value')!
    expect((await post(app, `/app/blocks/${image.id}/move`, cookie, form({ direction: 'up', _version: version }))).statusCode).toBe(303)
    expect((await order()).slice(0, 3)).toEqual(['hero', 'image', 'text'])
    // The same form again: the block has moved since, so the old version is refused.
    const stale = await post(app, `/app/blocks/${image.id}/move`, cookie, form({ direction: 'up', _version: version }))
    expect(stale.statusCode).toBe(412)
    expect(stale.body).toContain('nothing was moved')
    expect((await order()).slice(0, 3)).toEqual(['hero', 'image', 'text'])

    const confirm = await page(`/app/blocks/${image.id}/delete`)
    expect(confirm).toContain('Delete this picture block?')
    const deleted = await post(
      app,
      `/app/blocks/${image.id}/delete`,
      cookie,
      form({ _version: versionIn(confirm, `/app/blocks/${image.id}/delete`)! }),
    )
    expect(deleted.statusCode).toBe(303)
    expect(await order()).toEqual(['hero', 'text', 'features', 'faq', 'cta', 'contact_form', 'testimonial'])
  })

  it('publishes, serves the page on the site’s subdomain, publishes an edit and rolls back', async () => {
    const published: string[] = []
    const publish = async () => {
      const res = await post(app, `/app/sites/${siteId}/rebuild`, cookie, form())
      expect(res.statusCode).toBe(303)
      const done = await until(() =>
        app.db
          .selectFrom('builds')
          .selectAll()
          .where('site_id', '=', siteId)
          .where('status', 'in', ['succeeded', 'failed'])
          .where('id', 'not in', published.length ? published : ['none'])
          .executeTakeFirst(),
      )
      expect(done.status).toBe('succeeded')
      published.push(done.id)
      return done
    }
    const first = await publish()
    const host = 'sonnen-backerei.sites.test'
    const served = async () => (await app.inject({ method: 'GET', url: '/', headers: { host } })).body
    await expect.poll(served).toContain('Written in tab A.')
    const home = await page(`/app/sites/${siteId}`)
    expect(home).toContain('Published (2 pages)')
    expect(home).toContain(`href="https://${host}/"`)

    const text = await app.db
      .selectFrom('blocks')
      .selectAll()
      .where('page_id', '=', pageId)
      .where('type', '=', 'text')
      .executeTakeFirstOrThrow()
    const edit = await page(`/app/blocks/${text.id}`)
    expect(
      (
        await post(
          app,
          `/app/blocks/${text.id}`,
          cookie,
          form({ _version: versionIn(edit, `/app/blocks/${text.id}`)!, markdown: 'Now with **rye**.' }),
        )
      ).statusCode,
    ).toBe(303)
    const second = await publish()
    await expect.poll(served).toContain('Now with <strong>rye</strong>.')
    const rolled = await post(app, `/app/sites/${siteId}/rollback`, cookie, form({ build_id: first.id }))
    expect(rolled.statusCode).toBe(303)
    await expect.poll(served).toContain('Written in tab A.')
    expect(await page(`/app/sites/${siteId}`)).toContain(`Go back to ${second.id}`)
  })

  it('changes the settings: name, address, languages, business data and assistant; a taken address and a stale form are refused', async () => {
    const url = `/app/sites/${siteId}/settings`
    // Without the assistant add-on the form offers no assistant, and says where it comes from.
    const free = await page(url)
    expect(free).toContain('It comes with the AI sales assistant add-on, from plan plus')
    expect(cheerio.load(free)('#f-assistant-persona').length).toBe(0)
    await updateAccount(app.db, accountId, { plan: 'plus' })
    await setAddOn(app.db, { accountId, addOn: 'ai_sales_assistant', on: true })
    const body = await page(url)
    const version = versionIn(body, url)!
    const fields = {
      name: 'Sonnen Bakery',
      subdomain: 'sonne',
      locales: ['en', 'de'],
      default_locale: 'en',
      'organization.name': 'Sonnen Bäckerei GmbH',
      'organization.telephone': '+49 40 1234567',
      'organization.email': 'hello@sonne.example',
      'organization.logo': 'https://img.example/logo.png',
      'organization.address.street': 'Market Street 12',
      'organization.address.postal_code': '20095',
      'organization.address.locality': 'Hamburg',
      'organization.address.country': 'DE',
      'assistant.enabled': 'on',
      'assistant.persona': 'Sonja',
      'assistant.booking_url': 'https://book.example/sonne',
      'assistant.lead': 'on',
    }
    const wrong = await post(
      app,
      url,
      cookie,
      form({
        ...fields,
        _version: version,
        'organization.telephone': 'call me',
        'organization.address.locality': '',
        'assistant.booking_url': 'book.example',
      }),
    )
    expect(wrong.statusCode).toBe(400)
    expect(fieldError(wrong.body, 'f-organization-telephone')).toMatch(/digits/)
    expect(fieldError(wrong.body, 'f-organization-address-locality')).toBe('Fill this in.')
    expect(fieldError(wrong.body, 'f-assistant-booking_url')).toMatch(/https:\/\//)
    expect(versionIn(wrong.body, url)).toBe(version)

    const saved = await post(app, url, cookie, form({ ...fields, _version: version }))
    expect(saved.statusCode, saved.body).toBe(303)
    const site = await app.db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirstOrThrow()
    expect(site).toMatchObject({ name: 'Sonnen Bakery', slug: 'sonne' })
    expect(site.settings).toMatchObject({
      assistant: {
        enabled: true,
        persona: 'Sonja',
        capabilities: { booking: true, booking_url: 'https://book.example/sonne', lead: true, handoff: false },
      },
      hosting: {
        organization: {
          name: 'Sonnen Bäckerei GmbH',
          telephone: '+49 40 1234567',
          address: { street: 'Market Street 12', postal_code: '20095', locality: 'Hamburg', country: 'DE' },
        },
      },
    })

    const stale = await post(app, url, cookie, form({ ...fields, name: 'Old tab name', _version: version }))
    expect(stale.statusCode).toBe(412)
    expect(cheerio.load(stale.body)('#f-name').attr('value')).toBe('Old tab name')
    expect(cheerio.load(stale.body)('#f-name-saved').text()).toBe('Saved meanwhile: Sonnen Bakery')
    expect((await app.db.selectFrom('sites').select('name').where('id', '=', siteId).executeTakeFirstOrThrow()).name).toBe('Sonnen Bakery')

    const other = await signedIn(app, 'neighbour@example.com')
    await app.db
      .insertInto('sites')
      .values({
        id: 'site_neighbourneighbour',
        account_id: other.user.accountId,
        name: 'Neighbour',
        slug: 'neighbour',
        default_locale: 'en',
      })
      .execute()
    const current = versionIn(await page(url), url)!
    const taken = await post(app, url, cookie, form({ ...fields, subdomain: 'neighbour', _version: current }))
    expect(taken.statusCode).toBe(409)
    expect(fieldError(taken.body, 'f-subdomain')).toMatch(/Another site has this address/)
    expect(cheerio.load(taken.body)('#f-subdomain').attr('value')).toBe('neighbour')
    await expect
      .poll(async () => (await app.inject({ method: 'GET', url: '/', headers: { host: 'sonne.sites.test' } })).statusCode)
      .toBe(200)
  })

  it('adds an own domain from plan lite: refused on free with the upgrade path, then its TXT record, and removed after asking', async () => {
    await updateAccount(app.db, accountId, { plan: 'free' })
    const url = `/app/sites/${siteId}/domains`
    expect(await page(url)).toContain('sonne.sites.test')
    const refusedOnFree = await post(app, url, cookie, form({ hostname: 'www.sonne.example' }))
    expect(refusedOnFree.statusCode).toBe(403)
    let $ = cheerio.load(refusedOnFree.body)
    expect($('.problems').text()).toMatch(/plan Lite/)
    expect($('.problems a[href="/#plans"]').length).toBe(1)
    expect($('#f-hostname').attr('value')).toBe('www.sonne.example')
    expect(await app.db.selectFrom('domains').select('id').where('site_id', '=', siteId).execute()).toEqual([])

    await updateAccount(app.db, accountId, { plan: 'lite' })
    const wrong = await post(app, url, cookie, form({ hostname: 'https://www.sonne.example/menu' }))
    expect(wrong.statusCode).toBe(400)
    expect(fieldError(wrong.body, 'f-hostname')).toBeTruthy()
    const added = await post(app, url, cookie, form({ hostname: 'www.sonne.example' }))
    expect(added.statusCode, added.body).toBe(303)
    expect(added.headers['location']).toBe(`${url}?done=domain-added`)
    const domain = await app.db.selectFrom('domains').selectAll().where('site_id', '=', siteId).executeTakeFirstOrThrow()
    const listed = await page(`${url}?done=domain-added`)
    expect(listed).toContain('_wps-challenge.www.sonne.example')
    expect(listed).toContain(domain.verification_value)
    expect(listed).toContain('Waiting for verification')
    const confirm = await page(`/app/domains/${domain.id}/delete`)
    expect(confirm).toContain('Your site stops answering at www.sonne.example')
    expect((await post(app, `/app/domains/${domain.id}/delete`, cookie, form())).statusCode).toBe(303)
    expect(await app.db.selectFrom('domains').select('id').where('site_id', '=', siteId).execute()).toEqual([])
    $ = cheerio.load(await page(url))
    expect($('table').length).toBe(0)
  })

  it('shows another account nothing: every editor address of this site answers 404', async () => {
    const stranger = await signedIn(app, 'stranger@example.com')
    const { cookie: theirs, token: theirToken } = await formToken(app, stranger.cookie, '/app/start')
    const block = await app.db.selectFrom('blocks').select('id').where('page_id', '=', pageId).executeTakeFirstOrThrow()
    for (const url of [
      `/app/sites/${siteId}`,
      `/app/sites/${siteId}/settings`,
      `/app/sites/${siteId}/domains`,
      `/app/sites/${siteId}/pages/new`,
      `/app/pages/${pageId}`,
      `/app/pages/${pageId}/delete`,
      `/app/blocks/${block.id}`,
      `/app/blocks/${block.id}/delete`,
      `/app/pages/${pageId}/blocks/new?type=text`,
    ]) {
      expect((await get(app, url, theirs)).statusCode, url).toBe(404)
    }
    const posts: Array<[string, Record<string, string>]> = [
      [`/app/sites/${siteId}/settings`, { name: 'x', subdomain: 'x', locales: 'en', default_locale: 'en' }],
      [`/app/sites/${siteId}/pages`, { title: 'x', path: '/x', locale: 'en' }],
      [`/app/sites/${siteId}/rebuild`, {}],
      [`/app/sites/${siteId}/domains`, { hostname: 'www.x.example' }],
      [`/app/pages/${pageId}`, { title: 'x', path: '/x', locale: 'en' }],
      [`/app/pages/${pageId}/delete`, {}],
      [`/app/pages/${pageId}/blocks`, { type: 'text', markdown: 'x' }],
      [`/app/blocks/${block.id}`, { markdown: 'x' }],
      [`/app/blocks/${block.id}/move`, { direction: 'down' }],
      [`/app/blocks/${block.id}/delete`, {}],
    ]
    for (const [url, fields] of posts) expect((await post(app, url, theirs, { _csrf: theirToken, ...fields })).statusCode, url).toBe(404)
    expect((await app.db.selectFrom('sites').select('name').where('id', '=', siteId).executeTakeFirstOrThrow()).name).toBe('Sonnen Bakery')
  })

  it('deletes a page after asking', async () => {
    const de = await app.db
      .selectFrom('pages')
      .select('id')
      .where('site_id', '=', siteId)
      .where('locale', '=', 'de')
      .executeTakeFirstOrThrow()
    const confirm = await page(`/app/pages/${de.id}/delete`)
    expect(confirm).toContain('The page and its 0 blocks are deleted')
    const res = await post(app, `/app/pages/${de.id}/delete`, cookie, form({ _version: versionIn(confirm, `/app/pages/${de.id}/delete`)! }))
    expect(res.statusCode).toBe(303)
    expect(res.headers['location']).toBe(`/app/sites/${siteId}?done=page-deleted`)
    expect(await app.db.selectFrom('pages').select('id').where('id', '=', de.id).executeTakeFirst()).toBeUndefined()
  })

  it('refuses a second site on plan free with the upgrade path, the name kept and nothing stored', async () => {
    await updateAccount(app.db, accountId, { plan: 'free' })
    const count = (await sitesOf()).length
    const res = await post(app, '/app/sites', cookie, form({ name: 'Second shop', locales: 'en', default_locale: 'en' }))
    expect(res.statusCode).toBe(403)
    const $ = cheerio.load(res.body)
    expect($('.problems').text()).toMatch(/plan/i)
    expect($('.problems a[href="/#plans"]').text()).toBe('compare the plans')
    expect($('#f-name').attr('value')).toBe('Second shop')
    expect((await sitesOf()).length).toBe(count)
  })
})
