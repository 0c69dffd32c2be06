import { Type, type Static } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { randomToken } from '../infra/crypto.ts'
import { sendPage as html } from '../infra/html.ts'
import { insertAuthorizationCode } from './authorization-codes.ts'
import { routeLimit } from '../infra/rate-limits.ts'
import { findClient, type Client } from './clients.ts'
import { MCP_SCOPES, parseScope, resources, REST_SCOPES, scopesOf } from './constants.ts'
import { esc, hidden, page } from './html.ts'
import { CHALLENGE } from './pkce.ts'

const Html = Type.String({ description: 'HTML page' })
const Param = Type.Optional(Type.String({ maxLength: 2048 }))

// Unknown parameters are ignored (RFC 6749 3.1); a repeated one fails the schema.
const AuthorizationQuery = Type.Object(
  {
    response_type: Param,
    client_id: Param,
    redirect_uri: Param,
    code_challenge: Param,
    code_challenge_method: Param,
    scope: Param,
    state: Type.Optional(Type.String({ maxLength: 1024 })),
    resource: Param,
  },
  { additionalProperties: true },
)
type AuthorizationQuery = Static<typeof AuthorizationQuery>

const ConsentForm = Type.Object(
  {
    ...AuthorizationQuery.properties,
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    _csrf: Type.String({ maxLength: 200 }),
  },
  { additionalProperties: false },
)

interface ValidRequest {
  client: Client
  redirectUri: string
  state: string | undefined
  codeChallenge: string
  scope: string[]
  resource: string
}

type Checked =
  | { ok: true; request: ValidRequest }
  /** No trustworthy redirect URI: the person sees the error (RFC 6749 4.1.2.1). */
  | { ok: false; page: string }
  | { ok: false; redirect: string }

const SCOPE_TEXT: Record<string, string> = {
  'mcp:read': 'read your sites, pages and leads through the MCP server',
  'mcp:tools': 'use MCP tools that change your sites',
  'read:sites': 'read your sites through the REST API',
  'write:pages': 'change your pages through the REST API',
  'manage:leads': 'read and manage your leads through the REST API',
}

/**
 * The authorization endpoint, checked in the order of RFC 6749 4.1.2.1: first the client and the
 * exact redirect URI (errors shown on a page), then everything else (errors sent to the client
 * with state and, per RFC 9207, iss):
 * - response_type is code; PKCE with S256 is required (plain is refused, OAuth 2.1 / BCP 2.1.1);
 * - resource (RFC 8707) names the MCP server or the REST API, and the scopes belong to it.
 */
export default async function authorizeRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const issuer = app.config.BASE_URL
  const known = resources(app.config)

  const errorRedirect = (redirectUri: string, state: string | undefined, error: string, description: string) => {
    const url = new URL(redirectUri)
    url.searchParams.set('error', error)
    url.searchParams.set('error_description', description)
    if (state !== undefined) url.searchParams.set('state', state)
    url.searchParams.set('iss', issuer)
    return url.toString()
  }

  async function check(params: AuthorizationQuery): Promise<Checked> {
    if (!params.client_id) return { ok: false, page: 'The request names no client (client_id is missing).' }
    const client = await findClient(app, params.client_id)
    if (!client) return { ok: false, page: 'The application that sent you here is not registered.' }
    const redirectUri = params.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined)
    if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
      return { ok: false, page: 'The application sent you here with a return address it has not registered.' }
    }
    const fail = (error: string, description: string): Checked => ({ ok: false, redirect: errorRedirect(redirectUri, params.state, error, description) })
    if (params.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported')
    if (!params.code_challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256')
    if (params.code_challenge_method !== 'S256') return fail('invalid_request', 'Only code_challenge_method=S256 is supported')
    if (!CHALLENGE.test(params.code_challenge)) return fail('invalid_request', 'The code_challenge is malformed')
    const asked = parseScope(params.scope)
    if (!asked) return fail('invalid_scope', 'The scope parameter is malformed')
    if (params.resource !== undefined && params.resource !== known.mcp && params.resource !== known.rest) {
      return fail('invalid_target', `Unknown resource; use ${known.mcp} or ${known.rest}`)
    }
    const resource = params.resource ?? (asked.length && asked.every((s) => (REST_SCOPES as readonly string[]).includes(s)) ? known.rest : known.mcp)
    const allowed = scopesOf(resource, app.config)
    const scope = asked.length ? asked : [...(resource === known.mcp ? MCP_SCOPES : REST_SCOPES)]
    const refused = scope.filter((s) => !allowed.includes(s))
    if (refused.length) return fail('invalid_scope', `Scope not available for ${resource}: ${refused.join(' ')}`)
    return { ok: true, request: { client, redirectUri, state: params.state, codeChallenge: params.code_challenge, scope, resource } }
  }

  const errorPage = (reply: FastifyReply, message: string) => html(reply, 400, page('Cannot continue', `<p>${esc(message)}</p><p>Return to the application and try again.</p>`))

  typed.get(
    '/oauth/authorize',
    {
      config: { operation: 'oauth.authorize', ...routeLimit(app.config, 'oauth.authorize') },
      schema: { summary: 'Authorization endpoint: sign-in and consent', tags: ['identity'], querystring: AuthorizationQuery, response: { 200: Html, 302: Type.Null(), 303: Type.Null(), 400: Html } },
    },
    async (request, reply) => {
      const checked = await check(request.query)
      if (!checked.ok) return 'page' in checked ? errorPage(reply, checked.page) : reply.redirect(checked.redirect, 302)
      if (!request.webUser) {
        return reply.redirect(`/signin?return_to=${encodeURIComponent(request.url)}`, 303)
      }
      const { client, redirectUri, scope, resource } = checked.request
      const target = new URL(redirectUri)
      // helmet's form-action 'self' would stop the browser following the consent form's redirect
      // to the client; widen it for exactly that origin, on this page only.
      const csp = String(reply.getHeader('content-security-policy') ?? '')
      reply.header('content-security-policy', csp.replace(/form-action [^;]*/, `form-action 'self' ${target.origin}`))
      const q = request.query
      return html(
        reply,
        200,
        page(
          'Allow access?',
          `<p>Signed in as <strong>${esc(request.webUser.email)}</strong>.</p>
<p><strong>${esc(client.clientName)}</strong> asks to:</p>
<ul>${scope.map((s) => `<li>${esc(SCOPE_TEXT[s] ?? s)} <span class="muted">(${esc(s)})</span></li>`).join('')}</ul>
<p class="muted">Access is for ${esc(resource)}. You will return to <strong>${esc(target.host)}</strong>.</p>
<form method="post" action="/oauth/authorize">
${hidden({
  _csrf: await reply.generateCsrf(),
  response_type: q.response_type,
  client_id: q.client_id,
  redirect_uri: q.redirect_uri,
  code_challenge: q.code_challenge,
  code_challenge_method: q.code_challenge_method,
  scope: q.scope,
  state: q.state,
  resource: q.resource,
})}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
        ),
      )
    },
  )

  typed.post(
    '/oauth/authorize',
    {
      config: { operation: 'oauth.authorize.decide', ...routeLimit(app.config, 'oauth.authorize') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Consent decision',
        tags: ['identity'],
        consumes: ['application/x-www-form-urlencoded'],
        body: ConsentForm,
        response: { 303: Type.Null(), 400: Html },
      },
    },
    async (request, reply) => {
      const { decision, _csrf: _token, ...params } = request.body
      const checked = await check(params)
      if (!checked.ok) return 'page' in checked ? errorPage(reply, checked.page) : reply.redirect(checked.redirect, 303)
      if (!request.webUser) {
        const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
        return reply.redirect(`/signin?return_to=${encodeURIComponent(`/oauth/authorize?${query}`)}`, 303)
      }
      const valid = checked.request
      if (decision === 'deny') {
        return reply.redirect(errorRedirect(valid.redirectUri, valid.state, 'access_denied', 'The person denied the request'), 303)
      }
      const code = randomToken(32)
      await insertAuthorizationCode(app.db, {
        code,
        clientId: valid.client.clientId,
        userId: request.webUser.id,
        redirectUri: valid.redirectUri,
        codeChallenge: valid.codeChallenge,
        scope: valid.scope,
        resource: valid.resource,
      })
      const url = new URL(valid.redirectUri)
      url.searchParams.set('code', code)
      if (valid.state !== undefined) url.searchParams.set('state', valid.state)
      url.searchParams.set('iss', issuer)
      return reply.redirect(url.toString(), 303)
    },
  )
}
