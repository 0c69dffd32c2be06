import { readFileSync } from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { compressedAsset, pickEncoding } from '../infra/content-encoding.ts'

/** The widget's script, read and compressed once at start: it changes only with a deploy. */
function widgetAsset() {
  return compressedAsset(readFileSync(new URL('./widget/widget.js', import.meta.url)))
}

/**
 * GET /widget.js: the embeddable sales-assistant widget. Loaded by customers' pages from another
 * origin, so it says Cross-Origin-Resource-Policy: cross-origin; cached for five minutes and
 * revalidated by ETag.
 */
export default async function widgetRoute(app: FastifyInstance) {
  const asset = widgetAsset()
  app.get(
    '/widget.js',
    {
      config: { operation: 'widget.script' },
      schema: {
        summary: 'The embeddable sales-assistant widget',
        tags: ['widget'],
        querystring: Type.Object({}, { additionalProperties: false }),
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('vary', 'accept-encoding')
        .header('etag', asset.etag)
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send()
      const encoding = pickEncoding(request.headers['accept-encoding'])
      if (encoding !== 'identity') reply.header('content-encoding', encoding)
      return reply.send(asset[encoding])
    },
  )
}
