import multipart from '@fastify/multipart'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import {
  deleteMedia,
  getMedia,
  listMedia,
  mediaUsage,
  prepareMedia,
  saveMedia,
  sitesUsingMedia,
  storageUsage,
  updateMedia,
  type Media,
  type PreparedMedia,
} from '../../domain/media/media.ts'
import { MAX_UPLOAD_BYTES } from '../../domain/media/images.ts'
import { classify, errors } from '../../errors.ts'
import type { FastifyError } from 'fastify'
import type { Db } from '../../infra/db.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { auditedChange } from '../audited-change.ts'
import { mayChange } from '../permissions.ts'
import { planRefusal } from '../refusal-words.ts'
import { errorLine, field, FormBodySchema, formState, hidden, problems, refused, textOf, type FormState } from './editor/form.ts'
import { thumbnail } from './media-picker.ts'
import type { Translator } from '../../domain/i18n/translator.ts'

/**
 * The media library in the dashboard (DESIGN.md 14): several photos uploaded at once by a plain
 * multipart form (on a phone it offers the camera roll and the camera; no script needed), each
 * with its thumbnail, alt text, name, where it is used, and its deletion, refused in plain words
 * while a page or a logo shows it. The same domain functions as /v1/media.
 */

const MAX_FILES = 10
/** The fields of a photo in the page's language. */
function fieldsOf(t: Translator) {
  return {
    ALT: { name: 'alt', label: t.t('editor.bf.gallery.alt'), maxLength: 300, optional: true, hint: t.t('media.alt.hint') },
    FILENAME: { name: 'filename', label: t.t('editor.bf.menu.name'), maxLength: 200 },
  }
}

interface UploadedFile {
  filename: string
  bytes: Buffer
}

interface UploadForm {
  _csrf?: string
  alt?: string
  files: UploadedFile[]
  /** A file past 20 MB: read no further, refused by name. */
  tooLarge: string[]
}

/** A size in the page's language: "1.5 MB", "1,5 MB". */
function megabytes(t: Translator, bytes: number): string {
  const one = (n: number) => new Intl.NumberFormat(t.lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(n)
  return bytes >= 1e9 ? `${one(bytes / 1e9)} GB` : `${one(bytes / 1e6)} MB`
}

/** Where each item shows: its pages (linked) and the sites whose logo it is. */
async function usesOf(t: Translator, db: Db, accountId: string, items: readonly Media[]): Promise<Map<string, SafeHtml[]>> {
  const uses = await mediaUsage(
    db,
    accountId,
    items.map((m) => m.id),
  )
  const pageIds = [...new Set([...uses.values()].flat().map((u) => u.pageId))]
  const pages = pageIds.length
    ? await db
        .selectFrom('pages')
        .innerJoin('sites', 'sites.id', 'pages.site_id')
        .select(['pages.id', 'pages.title', 'sites.name as site'])
        .where('pages.id', 'in', pageIds)
        .execute()
    : []
  const byId = new Map(pages.map((p) => [p.id, p]))
  const shown = new Map<string, SafeHtml[]>()
  for (const media of items) {
    const links = [...new Set((uses.get(media.id) ?? []).map((u) => u.pageId))].map((id) => {
      const page = byId.get(id)
      return html`<a href="/app/pages/${id}">${page ? `${page.title} (${page.site})` : t.t('media.aPage')}</a>`
    })
    const logos = await sitesUsingMedia(db, accountId, media.id)
    const sites = logos.length ? await db.selectFrom('sites').select(['id', 'name']).where('id', 'in', logos).execute() : []
    shown.set(media.id, [
      ...links,
      ...sites.map((s) =>
        t.rich('media.logoOf', { name: s.name }, { link: (words) => html`<a href="/app/sites/${s.id}/settings">${words}</a>` }),
      ),
    ])
  }
  return shown
}

/** An upload refused in the words a person acts on. */
function refusalWords(t: Translator, error: unknown): { status: number; text: string } | undefined {
  if (!(error instanceof Error)) return undefined
  const { status, code, detail } = classify(error as FastifyError)
  if (code === 'plan_limit') return { status, text: planRefusal(t, { code, detail }, error) }
  // English keeps the domain's own words (they name the exact problem); other languages say it by kind.
  if (['invalid_image', 'unsupported_media_type', 'payload_too_large', 'media_busy'].includes(code))
    return {
      status,
      text:
        t.lang === 'en'
          ? detail
          : t.t(`media.refused.${code as 'invalid_image' | 'unsupported_media_type' | 'payload_too_large' | 'media_busy'}`),
    }
  return undefined
}

/** Reads the multipart form: the files (at most ten, each at most 20 MB), the alt text and the CSRF token. */
async function readUploadForm(request: FastifyRequest): Promise<UploadForm> {
  const form: UploadForm = { files: [], tooLarge: [] }
  const { t } = request
  if (!request.isMultipart()) throw new errors.validationFailed(t.t('media.notMultipart'))
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer().catch((error: unknown) => {
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return undefined
          throw error
        })
        if (part.fieldname !== 'file' || part.filename === '') continue
        if (!bytes) form.tooLarge.push(part.filename)
        else form.files.push({ filename: part.filename, bytes })
      } else if (part.fieldname === '_csrf' || part.fieldname === 'alt') {
        form[part.fieldname] = String(part.value)
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'FST_FILES_LIMIT') throw new errors.validationFailed(t.t('media.tooMany', { max: MAX_FILES }))
    if ((error as { statusCode?: number }).statusCode === 413) throw new errors.payloadTooLarge(t.t('media.tooLargeOne'))
    throw new errors.validationFailed(t.t('media.unreadable'))
  }
  return form
}

export default async function mediaSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = app
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: MAX_FILES, fields: 5, fieldSize: 4096, parts: 20 } })

  async function library(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { upload?: FormState; refusal?: SafeHtml; editing?: { id: string; state: FormState } } = {},
  ): Promise<FastifyReply> {
    const { accountId } = request.person
    const { t } = request
    const { ALT, FILENAME } = fieldsOf(t)
    const csrf = reply.formToken()
    const [{ items, total }, usage] = await Promise.all([listMedia(db, accountId, { limit: 100, offset: 0 }), storageUsage(db, accountId)])
    const uses = await usesOf(t, db, accountId, items)
    const editor = mayChange(request.person)
    const upload = options.upload ?? formState({ alt: '' })
    const uploadForm = editor
      ? html`<h2 id="upload-h">${t.t('media.upload.heading')}</h2>
${options.refusal ? html`<div class="error" role="alert" id="problems">${options.refusal}</div>` : problems(upload, { file: t.t('nav.media'), alt: ALT.label }, t)}
<form method="post" action="/app/media" enctype="multipart/form-data" class="card" aria-labelledby="upload-h" data-upload>${hidden(csrf)}
<div class="field${upload.errors['file'] ? ' invalid' : ''}"><label for="f-file">${t.t('nav.media')}</label><p class="hint" id="f-file-hint">${t.t('media.upload.hint', { max: MAX_FILES })}</p>${upload.errors['file'] ? errorLine('f-file', upload.errors['file'], t) : ''}
<input id="f-file" name="file" type="file" accept="image/jpeg,image/png,image/webp,image/avif,image/gif" multiple required aria-describedby="f-file-hint${upload.errors['file'] ? ' f-file-error' : ''}"></div>
${field(upload, ALT, t)}
<p><button type="submit">${t.t('media.upload.submit')}</button> <progress max="1" value="0" aria-label="${t.t('media.upload.progress')}" hidden></progress></p></form>
<script src="/app/upload.js" defer></script>`
      : html`<p class="muted">${t.t('media.viewOnly')}</p>`
    const rows = items.map((media) => {
      const where = uses.get(media.id) ?? []
      const state = options.editing?.id === media.id ? options.editing.state : formState({ alt: media.alt, filename: media.filename })
      const mine = scoped(state, media.id)
      return html`<li class="card media-item" id="media-${media.id}">${thumbnail(media)}<div>
<p><strong>${media.filename}</strong><br><span class="muted">${t.t('media.size', { width: media.width, height: media.height, size: megabytes(t, media.bytes) })}</span></p>
<p>${where.length ? html`${t.t('media.usedOn')} ${joinHtml(t, where)}.` : html`<span class="muted">${t.t('media.unused')}</span>`}</p>
${
  editor
    ? html`<form method="post" action="/app/media/${media.id}#media-${media.id}" novalidate>${hidden(csrf)}${problems(mine, { [`alt-${media.id}`]: ALT.label, [`filename-${media.id}`]: FILENAME.label }, t)}
${field(mine, { ...ALT, name: `alt-${media.id}` }, t)}${field(mine, { ...FILENAME, name: `filename-${media.id}` }, t)}
<p><button type="submit" class="secondary">${t.t('media.save', { name: media.filename })}</button></p></form>
<form method="post" action="/app/media/${media.id}/delete">${hidden(csrf)}<button type="submit" class="danger">${t.t('media.delete', { name: media.filename })}</button></form>`
    : html`<p>${media.alt ? html`${t.t('media.description')} ${media.alt}` : html`<span class="muted">${t.t('media.noDescription')}</span>`}</p>`
}</div></li>`
    })
    const body = html`<p>${t.t('media.intro')}</p>
<p class="muted">${t.t('media.usage', { count: total, used: megabytes(t, usage.usedBytes), limit: megabytes(t, usage.limitBytes) })}</p>
${uploadForm}
<h2>${t.t('media.yours')}</h2>
${rows.length ? html`<ul class="media-list">${rows}</ul>` : html`<p>${t.t('media.none')}</p>`}`
    return reply.page(t.t('nav.media'), 'media', body)
  }

  routes.get('/media', { config: { operation: 'dashboard.media.list' }, schema: { hide: true } }, async (request, reply) =>
    library(request, reply),
  )

  routes.post(
    '/media',
    {
      config: { operation: 'dashboard.media.upload' },
      bodyLimit: MAX_FILES * MAX_UPLOAD_BYTES,
      schema: { hide: true },
      // The form is read before the CSRF check (which reads its token from the body).
      preValidation: async (request) => {
        request.body = await readUploadForm(request)
      },
    },
    async (request, reply) => {
      const form = request.body as UploadForm
      const { t } = request
      const alt = (form.alt ?? '').trim()
      const state = formState({ alt })
      if (alt.length > 300) {
        await refused(request, reply, 400)
        return library(request, reply, { upload: { ...state, errors: { alt: t.t('editor.form.maxLength', { limit: 300 }) } } })
      }
      if (form.files.length === 0 && form.tooLarge.length === 0) {
        await refused(request, reply, 400)
        return library(request, reply, { upload: { ...state, errors: { file: t.t('media.chooseOne') } } })
      }
      const { accountId, userId } = request.person
      const prepared: PreparedMedia[] = []
      const notSaved: Array<{ name: string; text: string; status: number }> = form.tooLarge.map((name) => ({
        name,
        text: t.t('media.tooLarge'),
        status: 413,
      }))
      for (const file of form.files) {
        try {
          prepared.push(await prepareMedia(db, { accountId, createdBy: userId, filename: file.filename, alt, bytes: file.bytes }))
        } catch (error) {
          const words = refusalWords(t, error)
          if (!words) throw error
          notSaved.push({ name: file.filename, ...words })
        }
      }
      let saved = 0
      if (prepared.length) {
        try {
          await auditedChange(
            request,
            async (trx) => {
              for (const item of prepared) await saveMedia(trx, app.mediaStorage, item)
            },
            notSaved.length ? notSaved[0]!.status : 303,
          )
          saved = prepared.length
        } catch (error) {
          const words = refusalWords(t, error)
          if (!words) throw error
          await refused(request, reply, words.status)
          return library(request, reply, { upload: state, refusal: html`<p>${t.t('media.nothingSaved')} ${words.text}</p>` })
        }
      }
      if (notSaved.length === 0) {
        const done = `/app/media?done=${saved === 1 ? 'photo-uploaded' : 'photos-uploaded'}`
        // The upload script (scripts.ts) goes there itself: a redirect followed in the background is
        // out of its hands (a browser may upgrade it to https on a plain-http host).
        if (request.headers['x-upload'] === 'progress') return reply.code(204).header('location', done).send()
        return reply.redirect(done, 303)
      }
      await refused(request, reply, notSaved[0]!.status)
      return library(request, reply, {
        upload: state,
        refusal: html`<h2>${t.t('media.notSaved', { count: notSaved.length })}</h2>${saved ? html`<p>${t.t('media.saved', { count: saved })}</p>` : ''}<ul>${notSaved.map((n) => html`<li><strong>${n.name}</strong>: ${n.text}</li>`)}</ul>`,
      })
    },
  )

  const Params = Type.Object({ id: Type.String({ pattern: '^med_[A-Za-z0-9_-]{8,64}$' }) })
  const ownMedia = async (request: FastifyRequest, id: string) => {
    const media = await getMedia(db, request.person.accountId, id)
    if (!media) throw new errors.notFound(request.t.t('media.notFound'))
    return media
  }

  routes.post(
    '/media/:id',
    { config: { operation: 'dashboard.media.update' }, schema: { hide: true, params: Params, body: FormBodySchema } },
    async (request, reply) => {
      const media = await ownMedia(request, request.params.id)
      const alt = textOf(request.body, `alt-${media.id}`).trim()
      const filename = textOf(request.body, `filename-${media.id}`).trim()
      const { t } = request
      const wrong: Record<string, string> = {}
      if (alt.length > 300) wrong['alt'] = t.t('editor.form.maxLength', { limit: 300 })
      if (filename === '') wrong['filename'] = t.t('editor.form.required')
      else if (filename.length > 200) wrong['filename'] = t.t('editor.form.maxLength', { limit: 200 })
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return library(request, reply, { editing: { id: media.id, state: { values: { alt, filename }, errors: wrong } } })
      }
      await auditedChange(request, (trx) => updateMedia(trx, request.person.accountId, media.id, { alt, filename }))
      return reply.redirect(`/app/media?done=photo-saved#media-${media.id}`, 303)
    },
  )

  routes.post(
    '/media/:id/delete',
    { config: { operation: 'dashboard.media.delete' }, schema: { hide: true, params: Params, body: FormBodySchema } },
    async (request, reply) => {
      const media = await ownMedia(request, request.params.id)
      try {
        await auditedChange(request, (trx) => deleteMedia(trx, app.mediaStorage, request.person.accountId, media.id))
      } catch (error) {
        if (!(error instanceof errors.mediaInUse)) throw error
        const { t } = request
        const where = (await usesOf(t, db, request.person.accountId, [media])).get(media.id) ?? []
        await refused(request, reply, 409)
        return library(request, reply, {
          refusal: html`<p>${t.rich('media.inUse', { name: media.filename }, { strong: (words) => html`<strong>${words}</strong>`, uses: () => joinHtml(t, where) })}</p>`,
        })
      }
      return reply.redirect('/app/media?done=photo-deleted', 303)
    },
  )
}

/** The form state of one item's form, its fields named with the item's id. */
function scoped(state: FormState, id: string): FormState {
  const rename = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([k, v]) => [`${k}-${id}`, v]))
  return { ...state, values: rename(state.values), errors: rename(state.errors) }
}

/** "a, b and c" of links, with the page's word for "and". */
function joinHtml(t: Translator, parts: SafeHtml[]): SafeHtml {
  if (parts.length <= 1) return html`${parts}`
  return html`${parts.slice(0, -1).map((p, i) => html`${i ? ', ' : ''}${p}`)} ${t.t('media.and')} ${parts.at(-1)!}`
}
