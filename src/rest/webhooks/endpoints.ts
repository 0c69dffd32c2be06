import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  createEndpoint,
  deleteEndpoint,
  endpointView,
  findEndpoint,
  listEndpoints,
  updateEndpoint,
} from '../../domain/webhooks/endpoints.ts'
import type { SafeFetcher } from '../../infra/fetcher.ts'
import { answerChange, auditedChange } from '../audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, notFound, pageOf, sendItem } from '../http.ts'
import { checkEndpointUrl, type EndpointUrlPolicy } from '../../domain/webhooks/endpoint-url.ts'
import { Endpoint, EndpointParams, EndpointPatch, EndpointWithSecret, NewEndpoint } from './schemas.ts'

const tags = ['webhooks']

/** GET/POST /v1/webhooks and GET/PATCH/DELETE /v1/webhooks/{id}. */
export default async function endpointRoutes(app: FastifyInstance, options: { fetcher: SafeFetcher; urlPolicy: EndpointUrlPolicy }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { db, keyring } = app
  const checkUrl = (url: string) => checkEndpointUrl(url, options.urlPolicy, options.fetcher)

  typed.get(
    '/webhooks',
    {
      config: { operation: 'webhooks.list', scope: 'manage:webhooks', access: 'read' },
      schema: {
        summary: 'List webhook endpoints',
        tags,
        querystring: ListQuery,
        response: { 200: ListEnvelope(Endpoint, 'Webhook endpoints, oldest first') },
      },
    },
    async (request) => {
      const { limit, offset, page, perPage } = pageOf(request.query)
      const { rows, total } = await listEndpoints(db, request.principal.accountId, { limit, offset })
      return envelope(rows.map(endpointView), total, page, perPage)
    },
  )

  typed.post(
    '/webhooks',
    {
      config: { operation: 'webhooks.create', scope: 'manage:webhooks', access: 'write' },
      schema: {
        summary: 'Create a webhook endpoint; its signing secret is shown once',
        tags,
        body: NewEndpoint,
        response: { 201: EndpointWithSecret },
      },
    },
    async (request, reply) => {
      const url = await checkUrl(request.body.url)
      return answerChange(
        request,
        reply,
        (trx) =>
          createEndpoint(trx, keyring, request.principal.accountId, {
            url,
            description: request.body.description,
            eventTypes: request.body.event_types,
            enabled: request.body.enabled,
          }),
        ({ row, secret }) => {
          const view = endpointView(row)
          // The ETag is the endpoint's as GET shows it, without the secret.
          return { status: 201, body: { ...view, secret }, location: `/v1/webhooks/${row.id}`, etagSource: view }
        },
      )
    },
  )

  typed.get(
    '/webhooks/:id',
    {
      config: { operation: 'webhooks.get', scope: 'manage:webhooks', access: 'read' },
      schema: { summary: 'Read a webhook endpoint', tags, params: EndpointParams, response: { 200: Endpoint } },
    },
    async (request, reply) => {
      const row = await findEndpoint(db, request.principal.accountId, request.params.id)
      if (!row) throw notFound('Webhook endpoint')
      return sendItem(reply, endpointView(row))
    },
  )

  typed.patch(
    '/webhooks/:id',
    {
      config: { operation: 'webhooks.update', scope: 'manage:webhooks', access: 'write' },
      schema: {
        summary: 'Change a webhook endpoint (url, description, event types, enabled)',
        tags,
        params: EndpointParams,
        body: EndpointPatch,
        response: { 200: Endpoint },
      },
    },
    async (request, reply) => {
      const url = request.body.url === undefined ? undefined : await checkUrl(request.body.url)
      const row = await auditedChange(request, async (trx) => {
        const current = await findEndpoint(trx, request.principal.accountId, request.params.id)
        if (!current) throw notFound('Webhook endpoint')
        assertIfMatch(request, etagOf(endpointView(current)))
        return updateEndpoint(trx, request.principal.accountId, current.id, {
          url,
          description: request.body.description,
          eventTypes: request.body.event_types,
          enabled: request.body.enabled,
        })
      })
      return sendItem(reply, endpointView(row!))
    },
  )

  typed.delete(
    '/webhooks/:id',
    {
      config: { operation: 'webhooks.delete', scope: 'manage:webhooks', access: 'write' },
      schema: {
        summary: 'Delete a webhook endpoint with its deliveries',
        tags,
        params: EndpointParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => {
          const current = await findEndpoint(trx, request.principal.accountId, request.params.id)
          if (!current) throw notFound('Webhook endpoint')
          assertIfMatch(request, etagOf(endpointView(current)))
          await deleteEndpoint(trx, request.principal.accountId, current.id)
        },
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
