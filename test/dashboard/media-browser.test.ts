import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { PDF, phonePhoto } from '../helpers/images.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { buildSite } from '../sites/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'

// The media library in Chromium at phone width with JavaScript off: photos uploaded with the
// plain form, a lying file refused by name, alt text changed, photos picked in a hero and a
// gallery, the in-use refusal said in plain words, and the published page on the site's own
// subdomain showing them from /_media/ with srcset, width and height. axe-core finds nothing serious.
describe.skipIf(!haveBrowser || onPostgres)(
  'the media library in Chromium, without JavaScript and with it',
  { timeout: 240_000 },
  async () => {
    const { app, base } = await startLiveApp()
    const port = new URL(base).port
    const browser = await launchBrowser()
    const { check, findings, checked } = await accessibilityChecker(browser, base)

    it('uploads from a phone, describes, picks for a hero and a gallery, refuses deleting what a page shows, and publishes', async () => {
      const team = await makeTeam(app, 'pro')
      const site = await createAccountSite(app.db, team.accountId, { name: 'Phone Bakery' })
      const home = await createPage(app.db, site, { path: '/', title: 'Home' })
      const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
      const [name, value] = team.owner.cookie.split('=') as [string, string]
      await context.addCookies([{ name, value, url: base }])
      const page = await context.newPage()

      await page.goto(`${base}/app`)
      await page.getByRole('link', { name: 'Photos', exact: true }).click()
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Photos')
      await check('library, empty', page)

      // Two photos from the camera roll at once, with a description.
      await page.getByLabel('Photos', { exact: true }).setInputFiles([
        { name: 'IMG_2034.jpg', mimeType: 'image/jpeg', buffer: await phonePhoto(3) },
        { name: 'IMG_2035.jpg', mimeType: 'image/jpeg', buffer: await phonePhoto(50) },
      ])
      await page.getByLabel('What the photo shows (optional)').fill('Rye bread on the counter')
      await page.getByRole('button', { name: 'Upload' }).click()
      expect(await page.locator('.notice').textContent()).toContain('The photos were uploaded.')
      expect(await page.locator('.media-item').count()).toBe(2)
      await check('library, two photos', page)

      // A PDF named like a photo, beside a real one: the photo is kept, the PDF refused by name.
      await page.getByLabel('Photos', { exact: true }).setInputFiles([
        { name: 'menu.jpg', mimeType: 'image/jpeg', buffer: PDF },
        { name: 'IMG_2036.jpg', mimeType: 'image/jpeg', buffer: await phonePhoto(90) },
      ])
      await page.getByRole('button', { name: 'Upload' }).click()
      const refusal = await page.locator('#problems').textContent()
      expect(refusal).toContain('A photo was not saved')
      expect(refusal).toContain('menu.jpg')
      expect(refusal).toContain('PDF files are not images')
      expect(refusal).toContain('1 photo was saved')
      expect(await page.locator('.media-item').count()).toBe(3)
      await check('library, a file refused', page)

      // The newest first: change the oldest one's description.
      const rows = await app.db.selectFrom('media').select(['id', 'filename']).where('account_id', '=', team.accountId).execute()
      const id = (filename: string) => rows.find((r) => r.filename === filename)!.id
      const first = page.locator(`#media-${id('IMG_2034.jpg')}`)
      await first.getByLabel('What the photo shows (optional)').fill('A loaf of rye')
      await first.getByRole('button', { name: /Save the description/ }).click()
      expect(await page.locator('.notice').textContent()).toContain('description was saved')
      expect(
        await page
          .locator(`#media-${id('IMG_2034.jpg')}`)
          .getByLabel('What the photo shows (optional)')
          .inputValue(),
      ).toBe('A loaf of rye')

      // A hero with a photo picked from the library.
      await page.goto(`${base}/app/pages/${home.id}/blocks/new?type=hero`)
      await page.getByLabel('Heading', { exact: true }).fill('Bread from the oven')
      await page.getByRole('radio', { name: /IMG_2034\.jpg/ }).check()
      await check('hero with the picker', page)
      await page.getByRole('button', { name: 'Save block' }).click()
      expect(await page.locator('.notice').textContent()).toContain('The block was added.')

      // A gallery of two photos, the second row added without script; a row without a photo is refused beside it.
      await page.goto(`${base}/app/pages/${home.id}/blocks/new?type=gallery`)
      const photo = (n: number) => page.getByRole('group', { name: `Photo ${n}`, exact: true })
      await photo(1)
        .getByRole('radio', { name: /IMG_2035\.jpg/ })
        .check()
      await photo(1).getByLabel('Caption (optional)').fill('Rye')
      await page.getByRole('button', { name: 'Add another photo' }).click()
      await photo(2).getByLabel('Caption (optional)').fill('No photo chosen')
      await page.getByRole('button', { name: 'Save block' }).click()
      expect(await page.locator('.problems').textContent()).toContain('Choose a photo from your library.')
      await check('gallery refused', page)
      await photo(2)
        .getByRole('radio', { name: /IMG_2036\.jpg/ })
        .check()
      await page.getByRole('button', { name: 'Save block' }).click()
      expect(await page.locator('.notice').textContent()).toContain('The block was added.')

      // Deleting a photo the page shows is refused in plain words, naming the page.
      await page.goto(`${base}/app/media`)
      await page.getByRole('button', { name: 'Delete IMG_2034.jpg' }).click()
      const inUse = await page.locator('#problems').textContent()
      expect(inUse).toContain('IMG_2034.jpg was not deleted: it is used on Home (Phone Bakery)')
      expect(inUse).toContain('Take it out there first')
      expect(await page.locator('.media-item').count()).toBe(3)
      await check('delete refused', page)

      // Published: the page on the subdomain shows the photos from /_media/ with srcset, width and height.
      expect(await buildSite(app, site.id)).toMatchObject({ status: 'succeeded' })
      const published = await context.newPage()
      await published.goto(`http://phone-bakery.localhost:${port}/`)
      const hero = published.locator('.hero picture img')
      expect(await hero.getAttribute('src')).toBe(`_media/${id('IMG_2034.jpg')}/700.jpg`)
      expect(await hero.getAttribute('srcset')).toContain('320.jpg 320w')
      expect([await hero.getAttribute('width'), await hero.getAttribute('height')]).toEqual(['700', '1000'])
      expect(await hero.getAttribute('alt')).toBe('A loaf of rye')
      expect(await hero.getAttribute('fetchpriority')).toBe('high')
      const gallery = published.locator('.gallery img')
      expect(await gallery.count()).toBe(2)
      expect(await gallery.first().getAttribute('loading')).toBe('lazy')
      expect(await published.locator('.gallery figcaption').allTextContents()).toEqual(['Rye', 'No photo chosen'])
      const served = await fetch(`http://127.0.0.1:${port}/_media/${id('IMG_2034.jpg')}/700.jpg`)
      expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).exif).toBeUndefined()
      await check('published page', published)

      expect(checked.length).toBeGreaterThanOrEqual(6)
      expect(findings).toEqual([])
      await context.close()
    })
    it('shows the upload’s progress where scripts run, and ends on the pages the plain form shows', async () => {
      const team = await makeTeam(app, 'pro')
      const context = await browser.newContext({ viewport: PHONE })
      const [name, value] = team.owner.cookie.split('=') as [string, string]
      await context.addCookies([{ name, value, url: base }])
      const page = await context.newPage()
      const posts: string[] = []
      page.on('request', (request) => {
        if (request.method() === 'POST') posts.push(request.resourceType())
      })
      const progress: number[] = []
      await page.exposeFunction('progressSeen', (shown: number) => progress.push(shown))
      await page.goto(`${base}/app/media`)
      // The page's own script runs in the browser: handed over as text, as the dashboard serves it.
      await page.evaluate(`new MutationObserver(() => progressSeen(document.querySelector('form[data-upload] progress').value))
      .observe(document.querySelector('form[data-upload] progress'), { attributes: true })`)
      await page.getByLabel('Photos', { exact: true }).setInputFiles([
        { name: 'IMG_3001.jpg', mimeType: 'image/jpeg', buffer: await phonePhoto(7) },
        { name: 'IMG_3002.jpg', mimeType: 'image/jpeg', buffer: await phonePhoto(70) },
      ])
      await page.getByRole('button', { name: 'Upload' }).click()
      await page.waitForURL(/done=photos-uploaded/)
      expect(posts).toEqual(['xhr'])
      expect(progress.at(-1)).toBe(1)
      expect(await page.locator('.notice').textContent()).toContain('The photos were uploaded.')
      expect(await page.locator('.media-item').count()).toBe(2)

      // A lying file: the server's page, saying why, takes this one's place; nothing is sent twice.
      await page.getByLabel('Photos', { exact: true }).setInputFiles([{ name: 'menu.jpg', mimeType: 'image/jpeg', buffer: PDF }])
      await page.getByRole('button', { name: 'Upload' }).click()
      await expect.poll(async () => await page.locator('#problems').textContent()).toContain('PDF files are not images')
      expect(posts).toEqual(['xhr', 'xhr'])
      expect(await page.locator('.media-item').count()).toBe(2)
      await context.close()
    })
  },
)
