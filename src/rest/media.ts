import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import multipart from '@fastify/multipart'
import { createHash } from 'node:crypto'
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { errors } from '../errors.ts'
import { Problem } from '../schemas.ts'
import { deleteMedia, getMedia, listMedia, mediaUsage, prepareMedia, saveMedia, updateMedia, type Media } from '../domain/media/media.ts'
import { MAX_UPLOAD_BYTES } from '../domain/media/images.ts'
import { MediaId, MediaPatch, MediaSchema, mediaView } from '../domain/media/views.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, pageOf, sendItem } from './http.ts'
import { params } from './schemas/content.ts'
import { orNotFound } from './sites.ts'

const tags = ['media']

const problem = (description: string) => Type.Object(Problem.properties, { additionalProperties: false, description })
const UploadRefusals = {
  413: problem('The file is larger than 20 MB or 50 megapixels (payload_too_large)'),
  415: problem('Not a JPEG, PNG, WebP, AVIF or GIF image: SVG, HEIC, PDF and others (unsupported_media_type)'),
  422: problem(
    'The image is damaged, incomplete or not what its header says (invalid_image); or the Idempotency-Key was used with another file',
  ),
  503: problem('Every image processor is busy (media_busy); see Retry-After'),
}

/**
 * An upload as the route sees it, read before the Idempotency-Key is checked: its fingerprint
 * (what `toJSON` gives) is the file's SHA-256 with the other fields, never the bytes themselves.
 */
class Upload {
  readonly bytes: Buffer
  readonly filename: string | undefined
  readonly alt: string | undefined
  readonly digest: string
  constructor(bytes: Buffer, filename: string | undefined, alt: string | undefined, digest: string) {
    this.bytes = bytes
    this.filename = filename
    this.alt = alt
    this.digest = digest
  }
  toJSON() {
    return { file: this.digest, filename: this.filename ?? null, alt: this.alt ?? null }
  }
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif']
const binary = { type: 'string', format: 'binary' }
const UploadDocumented = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: {
          file: { ...binary, description: 'The image: JPEG, PNG, WebP, AVIF or GIF, at most 20 MB and 50 megapixels' },
          alt: { type: 'string', maxLength: 300, description: 'Text shown to people who cannot see the image' },
        },
        required: ['file'],
      },
    },
    ...Object.fromEntries(
      IMAGE_TYPES.map((type) => [type, { schema: { ...binary, description: 'The image’s bytes; name it with ?filename=' } }]),
    ),
  },
}

const UploadQuery = Type.Object(
  {
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The file’s name, for a raw upload' })),
    alt: Type.Optional(Type.String({ maxLength: 300, description: 'Alt text, for a raw upload' })),
  },
  { additionalProperties: false },
)

/** An upload too large for the body limit is the library's 413 payload_too_large, like one the processing refuses. */
function uploadErrors(error: FastifyError): never {
  if (error instanceof errors.payloadTooLarge) throw error
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.code === 'FST_REQ_FILE_TOO_LARGE' || error.statusCode === 413) {
    throw new errors.payloadTooLarge('The file is larger than 20 MB')
  }
  throw error
}

/** Reads the one file (and its alt text) of a multipart upload, or the raw body. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  const query = request.query as { filename?: string; alt?: string }
  const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
  if (request.isMultipart()) {
    let file: { bytes: Buffer; filename: string } | undefined
    let alt: string | undefined
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          const bytes = await part.toBuffer()
          if (part.fieldname !== 'file') continue
          if (file) throw new errors.validationFailed('Send one file a request, in the field file')
          file = { bytes, filename: part.filename }
        } else if (part.fieldname === 'alt') {
          alt = String(part.value)
          if (alt.length > 300) throw new errors.validationFailed('alt must be at most 300 characters')
        }
      }
    } catch (error) {
      // A body that is not the multipart it says it is (no boundary, cut short) is the client's to mend.
      const status = (error as { statusCode?: number }).statusCode
      if (status === undefined || status >= 500) throw new errors.validationFailed('The multipart/form-data body could not be read')
      throw error
    }
    if (!file) throw new errors.validationFailed('The form has no file in the field file')
    return new Upload(file.bytes, file.filename, alt ?? query.alt, digest(file.bytes))
  }
  const body = request.body
  if (!Buffer.isBuffer(body))
    throw new errors.validationFailed('Send the image as multipart/form-data (field file) or as the raw body with its Content-Type')
  return new Upload(body, query.filename, query.alt, digest(body))
}

/** The media library of /v1 (DESIGN.md 14): upload, list, read, change and delete. */
export default async function mediaRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 2, fields: 5, fieldSize: 4096, parts: 8 } })
  // A raw upload: any type but JSON and forms arrives as bytes, and the bytes decide what it is.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => done(null, body))
  const origin = app.config.BASE_URL

  const viewOf = async (db: typeof app.db, media: Media) =>
    mediaView(media, (await mediaUsage(db, media.accountId, [media.id])).get(media.id) ?? [], origin)

  typed.post(
    '/media',
    {
      bodyLimit: MAX_UPLOAD_BYTES,
      config: { operation: 'media.upload', scope: 'write:pages', access: 'write', openapi: { body: UploadDocumented } },
      schema: {
        summary: 'Upload an image',
        description:
          'Multipart (field `file`, optional `alt`) or the raw bytes with their Content-Type. The image is turned upright, its metadata (GPS, camera) removed, and variants made; the same bytes again answer the item already stored (200).',
        tags,
        querystring: UploadQuery,
        response: { 200: MediaSchema, 201: MediaSchema, ...UploadRefusals },
      },
      errorHandler: uploadErrors,
      preValidation: async (request) => {
        request.body = await readUpload(request)
      },
    },
    async (request, reply) => {
      const upload = request.body as unknown as Upload
      const principal = request.principal
      // Processing takes its time outside the transaction; only the writes go in it.
      const prepared = await prepareMedia(app.db, {
        accountId: principal.accountId,
        createdBy: principal.userId ?? principal.tokenId ?? principal.clientId,
        filename: upload.filename,
        alt: upload.alt,
        bytes: upload.bytes,
      })
      return answerChange(
        request,
        reply,
        (trx) => saveMedia(trx, app.mediaStorage, prepared),
        async ({ media, created }, trx) => ({
          status: created ? 201 : 200,
          body: await viewOf(trx, media),
          location: `/v1/media/${media.id}`,
        }),
      )
    },
  )

  typed.get(
    '/media',
    {
      config: { operation: 'media.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the media library',
        tags,
        querystring: ListQuery,
        response: { 200: ListEnvelope(MediaSchema, 'Images, newest first') },
      },
    },
    async (request) => {
      const paging = pageOf(request.query)
      const { accountId } = request.principal
      const { items, total } = await listMedia(app.db, accountId, paging)
      const uses = await mediaUsage(
        app.db,
        accountId,
        items.map((m) => m.id),
      )
      return envelope(
        items.map((m) => mediaView(m, uses.get(m.id) ?? [], origin)),
        total,
        paging.page,
        paging.perPage,
      )
    },
  )

  typed.get(
    '/media/:id',
    {
      config: { operation: 'media.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Get an image of the library', tags, params: params('id', MediaId), response: { 200: MediaSchema } },
    },
    async (request, reply) => {
      const media = orNotFound(await getMedia(app.db, request.principal.accountId, request.params.id), 'Media')
      return sendItem(reply, await viewOf(app.db, media))
    },
  )

  typed.patch(
    '/media/:id',
    {
      config: { operation: 'media.update', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Change an image’s alt text or name',
        tags,
        params: params('id', MediaId),
        body: MediaPatch,
        response: { 200: MediaSchema },
      },
    },
    async (request, reply) => {
      const { accountId } = request.principal
      const view = await auditedChange(request, async (trx) => {
        const current = orNotFound(await getMedia(trx, accountId, request.params.id), 'Media')
        assertIfMatch(request, etagOf(await viewOf(trx, current)))
        const changed = orNotFound(await updateMedia(trx, accountId, current.id, request.body), 'Media')
        return viewOf(trx, changed)
      })
      return sendItem(reply, view)
    },
  )

  typed.delete(
    '/media/:id',
    {
      config: { operation: 'media.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Delete an image',
        description:
          'Refused with 409 media_in_use, naming the pages, while a draft shows it. A published release that shows it keeps it served until that release is replaced.',
        tags,
        params: params('id', MediaId),
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      const { accountId } = request.principal
      await auditedChange(
        request,
        async (trx) => {
          const current = orNotFound(await getMedia(trx, accountId, request.params.id), 'Media')
          assertIfMatch(request, etagOf(await viewOf(trx, current)))
          orNotFound(await deleteMedia(trx, app.mediaStorage, accountId, current.id), 'Media')
        },
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
