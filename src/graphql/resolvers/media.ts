import { fetchImage } from '../../domain/media/import.ts'
import { deleteMedia, getMedia, listMedia, mediaUsage, prepareMedia, saveMedia, updateMedia, type Media } from '../../domain/media/media.ts'
import { mediaView } from '../../domain/media/views.ts'
import { errors } from '../../errors.ts'
import type { Db } from '../../infra/db.ts'
import { etagOf } from '../../infra/etag.ts'
import { auditedChange } from '../audited-change.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { badInput } from '../errors.ts'
import { inputs, plausibleId } from '../inputs.ts'
import { connection, windowOf } from '../paging.ts'
import { found, notFound, orNotFound } from './query.ts'
import { ifMatch, type Existing, type Input } from './writes.ts'

/**
 * The media library in GraphQL (DESIGN.md 14): the same domain functions, fields (in camelCase)
 * and scopes as /v1/media; importMedia fetches the image from an https address as MCP's
 * import_media does.
 */

type MediaRest = ReturnType<typeof mediaView>

function mediaNode(view: MediaRest) {
  return {
    id: view.id,
    filename: view.filename,
    contentType: view.content_type,
    width: view.width,
    height: view.height,
    bytes: view.bytes,
    alt: view.alt,
    url: view.url,
    variants: view.variants,
    usedBy: view.used_by.map((u) => ({ pageId: u.page_id, blockId: u.block_id })),
    createdAt: view.created_at,
    etag: etagOf(view),
  }
}

async function viewOf(context: GraphqlContext, db: Db, media: Media): Promise<MediaRest> {
  const uses = (await mediaUsage(db, media.accountId, [media.id])).get(media.id) ?? []
  return mediaView(media, uses, context.app.config.BASE_URL)
}

export const mediaResolvers = {
  Query: {
    async media(_root: unknown, args: { id: string }, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.readSites)
      const { db } = context.app
      const media = await found(args.id, 'Media', () => getMedia(db, principal.accountId, args.id))
      return mediaNode(await viewOf(context, db, media))
    },

    async mediaLibrary(_root: unknown, args: { first?: number | null; after?: string | null }, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.readSites)
      const window = windowOf(args)
      const { db } = context.app
      const { items, total } = await listMedia(db, principal.accountId, window)
      const uses = await mediaUsage(
        db,
        principal.accountId,
        items.map((m) => m.id),
      )
      return connection(
        items.map((m) => mediaNode(mediaView(m, uses.get(m.id) ?? [], context.app.config.BASE_URL))),
        total,
        window.offset,
      )
    },
  },

  Mutation: {
    async importMedia(_root: unknown, { input }: Input<{ url: string; alt?: string | null }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      if (typeof input.alt === 'string' && input.alt.length > 300) throw badInput('alt must be at most 300 characters', 'alt')
      const { bytes, filename } = await fetchImage(context.app.config, input.url)
      // Fetched and processed outside the transaction; only the writes go in it.
      const prepared = await prepareMedia(context.app.db, {
        accountId: principal.accountId,
        createdBy: principal.userId ?? principal.tokenId ?? principal.clientId,
        filename,
        alt: input.alt ?? undefined,
        bytes,
      })
      const { media } = await auditedChange(context, (trx) => saveMedia(trx, context.app.mediaStorage, prepared))
      return mediaNode(await viewOf(context, context.app.db, media))
    },

    async updateMedia(
      _root: unknown,
      { input }: Input<Existing & { alt?: string | null; filename?: string | null }>,
      context: GraphqlContext,
    ) {
      const principal = allowed(context, ACCESS.writePages)
      const patch = inputs.mediaPatch(input)
      if (!plausibleId(input.id)) throw notFound('Media')
      const view = await auditedChange(context, async (trx) => {
        const current = orNotFound(await getMedia(trx, principal.accountId, input.id), 'Media')
        ifMatch(input.ifMatch, etagOf(await viewOf(context, trx, current)))
        const changed = orNotFound(await updateMedia(trx, principal.accountId, current.id, patch), 'Media')
        return viewOf(context, trx, changed)
      })
      return mediaNode(view)
    },

    async deleteMedia(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      if (!plausibleId(input.id)) throw notFound('Media')
      await auditedChange(context, async (trx) => {
        const current = orNotFound(await getMedia(trx, principal.accountId, input.id), 'Media')
        ifMatch(input.ifMatch, etagOf(await viewOf(context, trx, current)))
        if (!(await deleteMedia(trx, context.app.mediaStorage, principal.accountId, current.id)))
          throw new errors.notFound('Media not found')
      })
      return input.id
    },
  },
}
