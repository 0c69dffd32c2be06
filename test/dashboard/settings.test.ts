import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { storeMedia } from '../../src/domain/media/media.ts'
import { siteLogoId } from '../../src/domain/sites/settings.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { transparentPng } from '../helpers/images.ts'
import { Browser, startLiveApp, type Page } from '../identity/helpers.ts'

/** The error shown next to a field, found through the field's aria-describedby. */
function fieldError(page: Page, id: string): string | undefined {
  const control = page.$(`#${id}`)
  if (control.attr('aria-invalid') !== 'true') return undefined
  const error = (control.attr('aria-describedby') ?? '').split(' ').find((ref) => ref.endsWith('-error'))
  return error
    ? page
        .$(`#${error}`)
        .text()
        .replace(/^Error: /, '')
    : undefined
}

const { app, base } = await startLiveApp()

/** A browser signed in as a new person, and the account made for them. */
async function signedIn(email: string) {
  const browser = new Browser(base)
  await browser.signIn(app, email, await browser.get('/signin'))
  const { account_id: accountId } = await app.db
    .selectFrom('users')
    .innerJoin('account_members', 'account_members.user_id', 'users.id')
    .select('account_members.account_id')
    .orderBy('account_members.seq', 'desc')
    .executeTakeFirstOrThrow()
  return { browser, accountId }
}

// A site's settings in a browser without JavaScript, over HTTP: every wrong field is named on the
// first refusal, and the address's own problems are said in plain words.
describe('site settings refused', async () => {
  const { browser, accountId } = await signedIn('settings-baker@example.com')
  const site = await createAccountSite(app.db, accountId, { name: 'Harbour Bakery' })
  const settingsUrl = `/app/sites/${site.id}/settings`
  /** Opens the settings and sends their form with `fields` changed (the test browser sends every checkbox, so the one language ticked is given). */
  const save = async (fields: Record<string, string>) =>
    browser.submit(await browser.get(settingsUrl), { locales: 'en', ...fields }, { action: settingsUrl })

  it('names the address with the other wrong fields, all at once', async () => {
    const refused = await save({
      name: '',
      subdomain: 'Bad Sub!',
      'organization.email': 'nope',
      'organization.logo': 'javascript:alert(1)',
      'organization.telephone': '1'.repeat(63),
    })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, 'f-subdomain')).toBe(
      'Use lower-case letters, digits and hyphens only (no spaces or dots), such as my-bakery.',
    )
    for (const id of ['f-name', 'f-organization-email', 'f-organization-logo', 'f-organization-telephone'])
      expect(fieldError(refused, id), id).toBeTruthy()
    expect(refused.$('#problems h2').text()).toBe('There are 5 problems')
    expect(refused.$('#f-subdomain').attr('value')).toBe('Bad Sub!')
  })

  it('says a reserved address is kept for the service, not taken by another site', async () => {
    for (const reserved of ['www', 'api']) {
      const refused = await save({ subdomain: reserved })
      expect(refused.status, reserved).toBe(400)
      expect(fieldError(refused, 'f-subdomain'), reserved).toBe(
        `The address “${reserved}” is kept for the service itself, so no site can have it. Choose another.`,
      )
    }
  })

  it('names the 63-character limit for a longer address', async () => {
    const refused = await save({ subdomain: 'a'.repeat(70) })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, 'f-subdomain')).toBe('Use at most 63 characters; this address has 70.')
  })

  it('keeps the social profiles one per line, and refuses an address that is not https beside the field', async () => {
    const refused = await save({ 'organization.social': 'https://www.instagram.com/harbourbakery\nhttp://facebook.com/harbour' })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, 'f-organization-social')).toBe(
      'Give up to 10 different addresses, one per line, each starting with https://.',
    )
    expect(refused.$('#f-organization-social').text()).toBe('https://www.instagram.com/harbourbakery\nhttp://facebook.com/harbour')
    const saved = await save({
      'organization.social': '  https://www.instagram.com/harbourbakery \n\nhttps://bsky.app/profile/harbour.example\n',
    })
    expect(saved.status, saved.html).toBe(303)
    const { settings } = await app.db.selectFrom('sites').select('settings').where('id', '=', site.id).executeTakeFirstOrThrow()
    expect((settings as { hosting: { organization: { social: string[] } } }).hosting.organization.social).toEqual([
      'https://www.instagram.com/harbourbakery',
      'https://bsky.app/profile/harbour.example',
    ])
    expect((await browser.get(settingsUrl)).$('#f-organization-social').text()).toBe(
      'https://www.instagram.com/harbourbakery\nhttps://bsky.app/profile/harbour.example',
    )
  })

  it('keeps the register entry and the VAT number as the Impressum writes them, and refuses a VAT number without its country beside the field', async () => {
    const refused = await save({ 'organization.register': 'Amtsgericht Kiel, HRB 4711', 'organization.vat_id': '123456789' })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, 'f-organization-vat_id')).toBe('Give the two letters of the country, then the number, such as DE123456789.')
    expect(refused.$('#f-organization-register').val()).toBe('Amtsgericht Kiel, HRB 4711')
    expect(refused.$('#f-organization-vat_id').val()).toBe('123456789')
    const saved = await save({ 'organization.register': 'Amtsgericht Kiel, HRB 4711', 'organization.vat_id': 'de 123 456 789' })
    expect(saved.status, saved.html).toBe(303)
    const { settings } = await app.db.selectFrom('sites').select('settings').where('id', '=', site.id).executeTakeFirstOrThrow()
    expect((settings as { hosting: { organization: Record<string, unknown> } }).hosting.organization).toMatchObject({
      register: 'Amtsgericht Kiel, HRB 4711',
      vat_id: 'DE123456789',
    })
    expect((await browser.get(settingsUrl)).$('#f-organization-vat_id').val()).toBe('DE123456789')
  })

  it('still saves a good address', async () => {
    const saved = await save({ subdomain: 'harbour-bakery-kiel' })
    expect(saved.status, saved.html).toBe(303)
    expect((await app.db.selectFrom('sites').select('slug').where('id', '=', site.id).executeTakeFirstOrThrow()).slug).toBe(
      'harbour-bakery-kiel',
    )
  })
})

// The logo is chosen among the library's photos, without JavaScript: radio buttons with thumbnails.
describe('the site’s logo in its settings', async () => {
  const { browser, accountId } = await signedIn('logo-baker@example.com')
  await updateAccount(app.db, accountId, { plan: 'pro' })
  const site = await createAccountSite(app.db, accountId, { name: 'Logo Bakery' })
  const settingsUrl = `/app/sites/${site.id}/settings`
  const logo = (
    await storeMedia(app.db, app.mediaStorage, { accountId, createdBy: null, filename: 'logo.png', bytes: await transparentPng() })
  ).media
  const logoOf = async () =>
    siteLogoId((await app.db.selectFrom('sites').select('settings').where('id', '=', site.id).executeTakeFirstOrThrow()).settings)

  it('offers the library’s photos, saves the one chosen, and takes it away with “No photo”', async () => {
    const page = await browser.get(settingsUrl)
    const choice = page.$(`input[type=radio][name=logo_media_id][value=${logo.id}]`)
    expect(choice).toHaveLength(1)
    expect(page.$('#logo-h').text()).toBe('Logo')
    const saved = await browser.submit(page, { locales: 'en', logo_media_id: logo.id }, { action: settingsUrl })
    expect(saved.status, saved.html).toBe(303)
    expect(await logoOf()).toBe(logo.id)
    const again = await browser.get(settingsUrl)
    expect(again.$(`input[name=logo_media_id][value=${logo.id}]`).attr('checked')).toBeDefined()
    expect((await browser.submit(again, { locales: 'en', logo_media_id: '' }, { action: settingsUrl })).status).toBe(303)
    expect(await logoOf()).toBeUndefined()
  })

  it('refuses a photo that is not in the library beside the field, keeping what was typed', async () => {
    const refused = await browser.submit(
      await browser.get(settingsUrl),
      { locales: 'en', name: 'Logo Bakery & Co', logo_media_id: 'med_notinthelibrary1' },
      { action: settingsUrl },
    )
    expect(refused.status).toBe(400)
    expect(refused.$('[id$="logo_media_id-error"]').text()).toBe('Error: The photo chosen before is no longer in your library.')
    expect(refused.$('#f-name').attr('value')).toBe('Logo Bakery & Co')
    expect(await logoOf()).toBeUndefined()
  })
})
