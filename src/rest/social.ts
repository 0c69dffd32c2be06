import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { getAccountSite } from '../domain/sites/sites.ts'
import {
  connectSocialAccount,
  deleteSocialAccount,
  findPost,
  findSocialAccount,
  LENGTH_LIMITS,
  listPosts,
  listSocialAccounts,
  MASTODON_URL_LENGTH,
  postLength,
  postText,
  schedulePost,
  type SocialAccountRow,
  type SocialPostRow,
} from '../domain/social/social.ts'
import { errors } from '../errors.ts'
import { createSafeFetcher } from '../infra/fetcher.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, notFound, pageOf, sendItem } from './http.ts'
import { checkEndpointUrl } from '../domain/webhooks/endpoint-url.ts'

const DateTime = Type.String({ format: 'date-time' })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const SocialAccount = Type.Object(
  {
    id: Type.String({ description: 'soc_…' }),
    network: Type.Union([Type.Literal('mastodon'), Type.Literal('bluesky')]),
    server_url: Type.String(),
    handle: Type.String(),
    created_at: DateTime,
  },
  { additionalProperties: false, description: 'A connected social account (never its secret)' },
)
const NewSocialAccount = Type.Union([
  Type.Object(
    {
      network: Type.Literal('mastodon'),
      server_url: Type.String({ minLength: 1, maxLength: 500, description: 'The instance, e.g. https://mastodon.social' }),
      handle: Type.String({ minLength: 1, maxLength: 200 }),
      access_token: Type.String({ minLength: 1, maxLength: 500 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      network: Type.Literal('bluesky'),
      handle: Type.String({ minLength: 1, maxLength: 253 }),
      app_password: Type.String({ minLength: 1, maxLength: 200 }),
      server_url: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'The PDS; default https://bsky.social' })),
    },
    { additionalProperties: false },
  ),
])
const SocialPost = Type.Object(
  {
    id: Type.String({ description: 'post_…' }),
    account_id: Type.String({ description: 'The social account (soc_…).' }),
    site_id: Nullable(Type.String()),
    text: Type.String(),
    link: Nullable(Type.String()),
    scheduled_at: DateTime,
    state: Type.Union([Type.Literal('scheduled'), Type.Literal('posted'), Type.Literal('failed')]),
    url: Nullable(Type.String({ description: 'The public URL once posted.' })),
    error: Nullable(Type.String()),
    posted_at: Nullable(DateTime),
    created_at: DateTime,
  },
  { additionalProperties: false, description: 'A social post' },
)
const NewSocialPost = Type.Object(
  {
    site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    account_id: Type.String({ minLength: 1, maxLength: 64 }),
    text: Type.String({ minLength: 1, maxLength: 5000 }),
    link: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 500 })),
    scheduled_at: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
  },
  { additionalProperties: false },
)
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false })

const accountView = (row: SocialAccountRow) => ({
  id: row.id,
  network: row.network,
  server_url: row.server_url,
  handle: row.handle,
  created_at: row.created_at.toISOString(),
})
const postView = (row: SocialPostRow) => ({
  id: row.id,
  account_id: row.social_account_id,
  site_id: row.site_id,
  text: row.text,
  link: row.link,
  scheduled_at: row.scheduled_at.toISOString(),
  state: row.state,
  url: row.url,
  error: row.error,
  posted_at: row.posted_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
})

const tags = ['social']

/**
 * /v1/social-accounts and /v1/social-posts: connect a Mastodon or Bluesky account (secrets kept
 * sealed) and publish posts at their time through the network's API; each published post fires
 * social.posted. Changes need write:pages, reads read:sites.
 */
export default async function socialRoutes(app: FastifyInstance) {
  const { db, keyring } = app
  const allowPrivateNetworks = app.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS
  const fetcher = createSafeFetcher({ allowPrivateNetworks, connections: 4 })
  app.addHook('onClose', () => fetcher.close())
  const urlPolicy = { requireHttps: app.config.NODE_ENV === 'production', allowPrivateNetworks }
  const checkServer = (url: string) =>
    checkEndpointUrl(url, urlPolicy, fetcher).catch((error: unknown) => {
      throw new errors.validationFailed(
        `server_url: ${error instanceof Error ? error.message.replace(/^The url/, 'the URL') : 'not accepted'}`,
      )
    })
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/social-accounts',
    {
      config: { operation: 'social.accounts.list', scope: 'read:sites', access: 'read' },
      schema: { summary: 'List connected social accounts', tags, querystring: ListQuery, response: { 200: ListEnvelope(SocialAccount) } },
    },
    async (request) => {
      const { limit, offset, page, perPage } = pageOf(request.query)
      const { rows, total } = await listSocialAccounts(db, request.principal.accountId, { limit, offset })
      return envelope(rows.map(accountView), total, page, perPage)
    },
  )

  typed.post(
    '/social-accounts',
    {
      config: { operation: 'social.accounts.connect', scope: 'write:pages', access: 'write' },
      schema: { summary: 'Connect a Mastodon or Bluesky account', tags, body: NewSocialAccount, response: { 201: SocialAccount } },
    },
    async (request, reply) => {
      const body = request.body
      const serverUrl = await checkServer(body.network === 'mastodon' ? body.server_url : (body.server_url ?? 'https://bsky.social'))
      const credentials =
        body.network === 'mastodon'
          ? { network: 'mastodon' as const, accessToken: body.access_token }
          : { network: 'bluesky' as const, appPassword: body.app_password }
      return answerChange(
        request,
        reply,
        (trx) =>
          connectSocialAccount(trx, keyring, request.principal.accountId, {
            serverUrl: new URL(serverUrl).origin,
            handle: body.handle.replace(/^@/, ''),
            credentials,
          }),
        (row) => ({ status: 201, body: accountView(row), location: `/v1/social-accounts/${row.id}` }),
      )
    },
  )

  typed.get(
    '/social-accounts/:id',
    {
      config: { operation: 'social.accounts.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Read a connected social account', tags, params: IdParams, response: { 200: SocialAccount } },
    },
    async (request, reply) => {
      const row = await findSocialAccount(db, request.principal.accountId, request.params.id)
      if (!row) throw notFound('Social account')
      return sendItem(reply, accountView(row))
    },
  )

  typed.delete(
    '/social-accounts/:id',
    {
      config: { operation: 'social.accounts.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Disconnect a social account',
        tags,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Disconnected' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => {
          const current = await findSocialAccount(trx, request.principal.accountId, request.params.id)
          if (!current) throw notFound('Social account')
          assertIfMatch(request, etagOf(accountView(current)))
          if (!(await deleteSocialAccount(trx, request.principal.accountId, current.id))) throw notFound('Social account')
        },
        204,
      )
      return reply.code(204).send(null)
    },
  )

  typed.get(
    '/social-posts',
    {
      config: { operation: 'social.posts.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List social posts, latest schedule first',
        tags,
        querystring: ListQuery,
        response: { 200: ListEnvelope(SocialPost) },
      },
    },
    async (request) => {
      const { limit, offset, page, perPage } = pageOf(request.query)
      const { rows, total } = await listPosts(db, request.principal.accountId, { limit, offset })
      return envelope(rows.map(postView), total, page, perPage)
    },
  )

  typed.post(
    '/social-posts',
    {
      config: { operation: 'social.posts.create', scope: 'write:pages', access: 'write' },
      schema: { summary: 'Schedule a post (now by default)', tags, body: NewSocialPost, response: { 201: SocialPost } },
    },
    async (request, reply) => {
      const body = request.body
      const { accountId } = request.principal
      return answerChange(
        request,
        reply,
        async (trx) => {
          const social = await findSocialAccount(trx, accountId, body.account_id)
          if (!social) throw notFound('Social account')
          if (body.site_id !== undefined && !(await getAccountSite(trx, accountId, body.site_id))) throw notFound('Site')
          const length = postLength(postText(body.text, body.link ?? null), social.network)
          const limit = LENGTH_LIMITS[social.network]
          if (length > limit) {
            const counted = social.network === 'mastodon' ? ` (every link counted as ${MASTODON_URL_LENGTH}, as Mastodon counts it)` : ''
            throw new errors.postTooLong(
              `The post is ${length} characters with its link${counted}; ${social.network} takes at most ${limit}`,
            )
          }
          return schedulePost(trx, accountId, {
            socialAccountId: social.id,
            siteId: body.site_id ?? null,
            text: body.text,
            link: body.link ?? null,
            scheduledAt: body.scheduled_at ? new Date(body.scheduled_at) : new Date(),
          })
        },
        (row) => ({ status: 201, body: postView(row), location: `/v1/social-posts/${row.id}` }),
      )
    },
  )

  typed.get(
    '/social-posts/:id',
    {
      config: { operation: 'social.posts.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Read a social post', tags, params: IdParams, response: { 200: SocialPost } },
    },
    async (request, reply) => {
      const row = await findPost(db, request.principal.accountId, request.params.id)
      if (!row) throw notFound('Social post')
      return sendItem(reply, postView(row))
    },
  )
}
