import * as cheerio from 'cheerio'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { phonePhoto, pngBomb, transparentPng } from '../helpers/images.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, memberBrowser, type TeamMember } from '../teams/helpers.ts'

// The dashboard's media library over real HTTP as a browser without script sends it (a
// multipart form with its CSRF token), on both database drivers: uploads on the free plan, bad
// files refused by name with their status, the description kept on a refusal, viewers and
// another account's photos, and the photo picker of the block forms.
const { app, base } = await startLiveApp()

/** A page as the member's browser opens it, with the cookies it then sends (the CSRF cookie the page set). */
async function open(member: TeamMember, path: string) {
  const res = await fetch(`${base}${path}`, { headers: { cookie: member.cookie }, redirect: 'manual' })
  const set = res.headers.getSetCookie().map((line) => line.split(';')[0]!)
  return { $: cheerio.load(await res.text()), cookies: set }
}

/** A browser's multipart post of the upload form, the page's CSRF token included. */
async function uploadForm(member: TeamMember, files: Array<[string, Buffer, string]>, alt = '') {
  const page = await open(member, '/app/media')
  const token = page.$('form[enctype="multipart/form-data"] input[name="_csrf"]').attr('value')
  const form = new FormData()
  form.append('_csrf', token ?? '')
  for (const [name, bytes, type] of files) form.append('file', new Blob([new Uint8Array(bytes)], { type }), name)
  form.append('alt', alt)
  const cookie = [member.cookie, ...page.cookies].join('; ')
  const res = await fetch(`${base}/app/media`, { method: 'POST', headers: { cookie }, body: form, redirect: 'manual' })
  return { status: res.status, location: res.headers.get('location'), $: cheerio.load(await res.text()) }
}

describe('the media library in the dashboard', () => {
  it('uploads several photos on the free plan, refuses bad files by name and keeps the good ones', async () => {
    const team = await makeTeam(app, 'free')
    const done = await uploadForm(
      team.editor,
      [
        ['shop.jpg', await phonePhoto(7), 'image/jpeg'],
        ['logo.png', await transparentPng(), 'image/png'],
      ],
      'Our shop',
    )
    expect(done.status).toBe(303)
    expect(done.location).toBe('/app/media?done=photos-uploaded')
    const rows = await app.db.selectFrom('media').selectAll().where('account_id', '=', team.accountId).execute()
    expect(rows.map((r) => [r.filename, r.alt]).sort()).toEqual([
      ['logo.png', 'Our shop'],
      ['shop.jpg', 'Our shop'],
    ])

    const refused = await uploadForm(
      team.owner,
      [
        ['bomb.png', pngBomb(), 'image/png'],
        ['ok.jpg', await phonePhoto(8), 'image/jpeg'],
      ],
      'kept',
    )
    expect(refused.status).toBe(413)
    expect(refused.$('#problems').text()).toMatch(/bomb\.png: The image has 60\.0 megapixels/)
    expect(refused.$('#problems').text()).toContain('1 photo was saved')
    // What was typed is kept.
    expect(refused.$('#f-alt').val()).toBe('kept')
    expect(refused.$('.media-item')).toHaveLength(3)

    const nothing = await uploadForm(team.owner, [])
    expect(nothing.status).toBe(400)
    expect(nothing.$('#problems').text()).toContain('Choose at least one photo.')
  })

  it('keeps a description that is refused, hides another account’s photos and lets viewers only look', async () => {
    const team = await makeTeam(app, 'pro')
    expect((await uploadForm(team.owner, [['bread.jpg', await phonePhoto(9), 'image/jpeg']])).status).toBe(303)
    const media = await app.db.selectFrom('media').select(['id']).where('account_id', '=', team.accountId).executeTakeFirstOrThrow()
    const owner = memberBrowser(base, team.owner)
    const page = await open(team.owner, '/app/media')
    const token = page.$(`#media-${media.id} input[name="_csrf"]`).first().attr('value')!
    const tooLong = 'x'.repeat(301)
    const res = await fetch(`${base}/app/media/${media.id}`, {
      method: 'POST',
      headers: { cookie: [team.owner.cookie, ...page.cookies].join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, [`alt-${media.id}`]: tooLong, [`filename-${media.id}`]: 'bread.jpg' }),
      redirect: 'manual',
    })
    expect(res.status).toBe(400)
    const $ = cheerio.load(await res.text())
    expect($(`#f-alt-${media.id}`).val()).toBe(tooLong)
    expect($(`#f-alt-${media.id}-error`).text()).toContain('Use at most 300 characters.')

    // The thumbnail is served from /_media/ without GPS.
    const thumb = page.$(`#media-${media.id} img.thumb`).attr('src')!
    const file = await fetch(`${base}${thumb}`)
    expect(file.status).toBe(200)
    expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).exif).toBeUndefined()

    const viewer = memberBrowser(base, team.viewer)
    const seen = await viewer.get('/app/media')
    expect(seen.$('.media-item')).toHaveLength(1)
    expect(seen.$('form[enctype="multipart/form-data"]')).toHaveLength(0)
    expect((await viewer.post(`/app/media/${media.id}/delete`, { _csrf: 'x' })).status).toBe(403)

    const stranger = await makeTeam(app, 'pro')
    const theirs = memberBrowser(base, stranger.owner)
    expect((await theirs.get('/app/media')).$('.media-item')).toHaveLength(0)
    const strangerPage = await open(stranger.owner, '/app/media')
    const strangerToken = strangerPage.$('input[name="_csrf"]').first().attr('value')!
    const foreign = await fetch(`${base}/app/media/${media.id}/delete`, {
      method: 'POST',
      headers: {
        cookie: [stranger.owner.cookie, ...strangerPage.cookies].join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: strangerToken }),
      redirect: 'manual',
    })
    expect(foreign.status).toBe(404)
    expect(await app.db.selectFrom('media').select('id').where('id', '=', media.id).executeTakeFirst()).toBeDefined()

    // The block forms offer the library's photos to pick, with a way to upload more.
    const site = await createAccountSite(app.db, team.accountId, { name: 'Picker Bakery' })
    const home = await createPage(app.db, site, { path: '/', title: 'Home' })
    const form = await owner.get(`/app/pages/${home.id}/blocks/new?type=image`)
    expect(form.$(`input[type=radio][name="media_id"][value="${media.id}"]`)).toHaveLength(1)
    expect(form.$('input[type=radio][name="media_id"][value=""]')).toHaveLength(1)
    expect(form.$('fieldset.picker a[href="/app/media"]').text()).toContain('Upload photos')
  })
})
