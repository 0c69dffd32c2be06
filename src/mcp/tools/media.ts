import { Type } from 'typebox'
import { deleteMedia, getMedia, listMedia, mediaUsage, storeMedia, updateMedia, type Media } from '../../domain/media/media.ts'
import { MediaSchema, mediaView } from '../../domain/media/views.ts'
import { errors } from '../../errors.ts'
import { fetchImage } from '../../domain/media/import.ts'
import type { Db } from '../../infra/db.ts'
import { accountTool, type AccountCall } from '../account.ts'
import { ListOf } from '../views.ts'
import { listOf, pageOf, PagingArguments } from './paging.ts'

const strict = { additionalProperties: false } as const
const MediaIdInput = Type.String({ minLength: 1, maxLength: 100, description: 'The media id (med_…)' })
const Alt = Type.String({ maxLength: 300, description: 'Text shown to people who cannot see the image' })

const notFound = (id: string) => new errors.notFound(`No media ${id} in this account`)

async function viewOf(call: AccountCall, db: Db, media: Media) {
  return mediaView(media, (await mediaUsage(db, media.accountId, [media.id])).get(media.id) ?? [], call.app.config.BASE_URL)
}

/** The media library's tools (DESIGN.md 14): the same domain functions and fields as /v1/media. */
export const mediaTools = [
  accountTool({
    name: 'list_media',
    title: 'List the media library',
    description: "The account's images, newest first, each with its variants' addresses and the blocks that show it.",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({ ...PagingArguments }, strict),
    output: ListOf(MediaSchema),
    run: async (args, call) => {
      const paging = pageOf(args)
      const { items, total } = await listMedia(call.db, call.accountId, paging)
      const uses = await mediaUsage(
        call.db,
        call.accountId,
        items.map((m) => m.id),
      )
      return listOf(
        items.map((m) => mediaView(m, uses.get(m.id) ?? [], call.app.config.BASE_URL)),
        total,
        paging,
      )
    },
  }),
  accountTool({
    name: 'import_media',
    title: 'Import an image from a web address',
    description:
      'Fetches a JPEG, PNG, WebP, AVIF or GIF (at most 20 MB, 50 megapixels) from an https address into the media library: turned upright, its metadata removed, variants made. Use its id as media_id in image, hero and gallery blocks.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2000, description: 'https://…' }), alt: Type.Optional(Alt) }, strict),
    output: MediaSchema,
    run: async (args, call) => {
      const { bytes, filename } = await fetchImage(call.app.config, args.url)
      const { media } = await storeMedia(call.db, call.app.mediaStorage, {
        accountId: call.accountId,
        createdBy: call.auth.subject,
        filename,
        alt: args.alt,
        bytes,
      })
      return viewOf(call, call.db, media)
    },
  }),
  accountTool({
    name: 'update_media',
    title: "Change an image's alt text or name",
    description: 'Sets the alt text (what people who cannot see the image hear) or the file name of an image of the library.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      { media_id: MediaIdInput, alt: Type.Optional(Alt), filename: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
      strict,
    ),
    output: MediaSchema,
    run: async ({ media_id, ...change }, call) => {
      const changed = await updateMedia(call.db, call.accountId, media_id, change)
      if (!changed) throw notFound(media_id)
      return viewOf(call, call.db, changed)
    },
  }),
  accountTool({
    name: 'delete_media',
    title: 'Delete an image',
    description:
      'Removes an image from the library. Refused (media_in_use, naming the pages) while a page shows it; a published page keeps showing it until it is published again.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object({ media_id: MediaIdInput }, strict),
    output: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, strict),
    run: async ({ media_id }, call) => {
      if (!(await getMedia(call.db, call.accountId, media_id))) throw notFound(media_id)
      await deleteMedia(call.db, call.app.mediaStorage, call.accountId, media_id)
      return { id: media_id, deleted: true as const }
    },
  }),
]
