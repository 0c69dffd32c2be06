import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { transparentPng } from '../helpers/images.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, type TeamMember } from '../teams/helpers.ts'
import { inEveryLanguage } from './dashboard-helpers.ts'

const { app, base } = await startLiveApp()

/** The upload form posted as a browser asking for `lang` sends it, with the page's CSRF token. */
async function upload(member: TeamMember, lang: string, files: Array<[string, Buffer, string]>) {
  const page = await fetch(`${base}/app/media`, { headers: { cookie: member.cookie, 'accept-language': lang } })
  const token = cheerio
    .load(await page.text())('form[enctype="multipart/form-data"] input[name="_csrf"]')
    .attr('value')
  const cookie = [member.cookie, ...page.headers.getSetCookie().map((line) => line.split(';')[0]!)].join('; ')
  const form = new FormData()
  form.append('_csrf', token ?? '')
  for (const [name, bytes, type] of files) form.append('file', new Blob([new Uint8Array(bytes)], { type }), name)
  const res = await fetch(`${base}/app/media`, {
    method: 'POST',
    headers: { cookie, 'accept-language': lang },
    body: form,
    redirect: 'manual',
  })
  return { status: res.status, $: cheerio.load(await res.text()) }
}

describe('the photos in German and French', () => {
  it('shows the library, a photo and its form without an English sentence', async () => {
    const team = await makeTeam(app, 'free')
    expect((await upload(team.editor, 'de', [['tor.png', await transparentPng(), 'image/png']])).status).toBe(303)
    const { de, fr } = await inEveryLanguage(app, team.editor.cookie, '/app/media')
    expect(de.$('h1').text()).toBe('Fotos')
    expect(de.$('#upload-h').text()).toBe('Fotos hochladen')
    expect(de.main).toContain('Auf keiner Seite verwendet.')
    expect(fr.$('button.danger').text()).toBe('Supprimer tor.png')
  })

  it('names a refused file and its reason in the page’s language', async () => {
    const team = await makeTeam(app, 'free')
    const refused = await upload(team.editor, 'fr', [['notes.txt', Buffer.from('not a picture'), 'text/plain']])
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect(refused.$('#problems h2').text()).toBe('Une photo n’a pas été enregistrée')
    expect(refused.$('#problems li').text()).toMatch(/^notes\.txt: (Ce fichier|Ce type de fichier)/)
  })
})
