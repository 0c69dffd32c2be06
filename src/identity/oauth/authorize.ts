import { Type, type Static } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { OAuthRedirectErrorCode } from '../../errors.ts'
import { randomToken } from '../../infra/crypto.ts'
import type { MessageKey } from '../../domain/i18n/translator.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { insertAuthorizationCode } from '../stores/authorization-codes.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { findClient, type Client } from '../stores/clients.ts'
import type { Config } from '../../config.ts'
import { MCP_SCOPES, parseScope, resources, REST_SCOPES, scopesOf } from '../constants.ts'
import { type IdentityPage, hidden, page, sendPage } from '../pages/shell.ts'
import { accountChoice, accountField, chosenAccount, type AccountChoice } from '../pages/account-choice.ts'
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
    account_id: Type.Optional(Type.String({ maxLength: 100 })),
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
  | { ok: false; page: MessageKey }
  /** The client and its return address are known: the error goes back to it, with state and iss. */
  | { ok: false; redirect: string; description: string; clientName: string }

/** What each scope lets the application do, in the person's words. */
const SCOPE_TEXT: Record<string, MessageKey> = {
  'mcp:read': 'consent.scope.mcpRead',
  'mcp:tools': 'consent.scope.mcpTools',
  'read:sites': 'consent.scope.readSites',
  'write:pages': 'consent.scope.writePages',
  'manage:leads': 'consent.scope.manageLeads',
}

/** Where the person returns to the client with an error (RFC 6749 4.1.2.1), with state and, per RFC 9207, iss. */
function errorRedirect(
  issuer: string,
  redirectUri: string,
  state: string | undefined,
  error: OAuthRedirectErrorCode,
  description: string,
): string {
  const url = new URL(redirectUri)
  url.searchParams.set('error', error)
  url.searchParams.set('error_description', description)
  if (state !== undefined) url.searchParams.set('state', state)
  url.searchParams.set('iss', issuer)
  return url.toString()
}

/** Step 1: the client and the exact redirect URI; without them no redirect can be trusted, so the person sees the error. */
async function checkClient(
  app: FastifyInstance,
  params: AuthorizationQuery,
): Promise<{ client: Client; redirectUri: string } | { page: MessageKey }> {
  if (!params.client_id) return { page: 'consent.error.noClient' }
  const client = await findClient(app, params.client_id)
  if (!client) return { page: 'consent.error.unknownClient' }
  const redirectUri = params.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined)
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return { page: 'consent.error.redirect' }
  }
  return { client, redirectUri }
}

type Refusal = { error: OAuthRedirectErrorCode; description: string }

/**
 * Step 2, refused to the client: response_type is code; PKCE with S256 is required (plain is
 * refused, OAuth 2.1 / BCP 2.1.1); resource (RFC 8707) names the MCP server or the REST API, and
 * the scopes belong to it.
 */
function checkParameters(
  config: Config,
  params: AuthorizationQuery,
): Refusal | { codeChallenge: string; scope: string[]; resource: string } {
  const known = resources(config)
  const refuse = (error: OAuthRedirectErrorCode, description: string): Refusal => ({ error, description })
  if (params.response_type !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported')
  if (!params.code_challenge) return refuse('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256')
  if (params.code_challenge_method !== 'S256') return refuse('invalid_request', 'Only code_challenge_method=S256 is supported')
  if (!CHALLENGE.test(params.code_challenge)) return refuse('invalid_request', 'The code_challenge is malformed')
  const asked = parseScope(params.scope)
  if (!asked) return refuse('invalid_scope', 'The scope parameter is malformed')
  if (params.resource !== undefined && params.resource !== known.mcp && params.resource !== known.rest) {
    return refuse('invalid_target', `Unknown resource; use ${known.mcp} or ${known.rest}`)
  }
  const resource =
    params.resource ?? (asked.length && asked.every((s) => (REST_SCOPES as readonly string[]).includes(s)) ? known.rest : known.mcp)
  const allowed = scopesOf(resource, config)
  const scope = asked.length ? asked : [...(resource === known.mcp ? MCP_SCOPES : REST_SCOPES)]
  const refused = scope.filter((s) => !allowed.includes(s))
  if (refused.length) return refuse('invalid_scope', `Scope not available for ${resource}: ${refused.join(' ')}`)
  return { codeChallenge: params.code_challenge, scope, resource }
}

/** The authorization request checked in the order of RFC 6749 4.1.2.1. */
async function check(app: FastifyInstance, params: AuthorizationQuery): Promise<Checked> {
  const client = await checkClient(app, params)
  if ('page' in client) return { ok: false, page: client.page }
  const checked = checkParameters(app.config, params)
  if ('error' in checked)
    return {
      ok: false,
      redirect: errorRedirect(app.config.BASE_URL, client.redirectUri, params.state, checked.error, checked.description),
      description: checked.description,
      clientName: client.client.clientName,
    }
  return { ok: true, request: { ...client, state: params.state, ...checked } }
}

const errorPage = (reply: FastifyReply, message: MessageKey) => {
  const t = reply.request.t
  return sendPage(reply, 400, page(t.t('error.title.other'), html`<p>${t.t(message)}</p><p>${t.t('consent.error.return')}</p>`))
}

/**
 * A faulty request of a known client, before the person did anything. Every client here registered
 * itself (RFC 7591, or a metadata document it serves), so none is verified: sending the browser
 * on to its address at once would make this origin an open redirector for anyone who registers
 * one (RFC 9700 4.11.2). The person sees the error and follows the link back if they choose.
 */
const refusalPage = (reply: FastifyReply, refused: { redirect: string; description: string; clientName: string }) => {
  const t = reply.request.t
  // The description is the one the client gets too: OAuth's own words, not translated.
  return sendPage(
    reply,
    400,
    page(
      t.t('error.title.other'),
      html`<p>${t.t('consent.refused', { client: refused.clientName, why: refused.description })}</p><p><a href="${refused.redirect}" rel="noreferrer">${t.t('consent.returnTo', { client: refused.clientName })}</a></p>`,
    ),
  )
}

/** The consent page: who asks for what, for which resource and account, and where the person returns to. */
async function consentPage(reply: FastifyReply, email: string, valid: ValidRequest, query: AuthorizationQuery, choice: AccountChoice) {
  const { client, redirectUri, scope, resource } = valid
  const target = new URL(redirectUri)
  // helmet's form-action 'self' would stop the browser following the consent form's redirect
  // to the client; widen it for exactly that origin, on this page only.
  const csp = String(reply.getHeader('content-security-policy') ?? '')
  reply.header('content-security-policy', csp.replace(/form-action [^;]*/, `form-action 'self' ${target.origin}`))
  const fields = {
    _csrf: reply.formToken(),
    response_type: query.response_type,
    client_id: query.client_id,
    redirect_uri: query.redirect_uri,
    code_challenge: query.code_challenge,
    code_challenge_method: query.code_challenge_method,
    scope: query.scope,
    state: query.state,
    resource: query.resource,
  }
  const t = reply.request.t
  const strong = (words: SafeHtml) => html`<strong>${words}</strong>`
  return sendPage(
    reply,
    200,
    page(
      t.t('consent.title'),
      html`<p>${t.rich('consent.signedInAs', { email }, { strong })}</p>
<p>${t.rich('consent.asks', { client: client.clientName }, { strong })}</p>
<ul>${scope.map((s) => html`<li>${SCOPE_TEXT[s] ? t.t(SCOPE_TEXT[s]) : s} <span class="muted">(${s})</span></li>`)}</ul>
<p class="muted">${t.rich('consent.resource', { resource, host: target.host }, { strong })}</p>
<form method="post" action="/oauth/authorize">
${hidden(fields)}
${accountField(t, choice)}
<button type="submit" name="decision" value="allow">${t.t('consent.allow')}</button>
<button type="submit" name="decision" value="deny">${t.t('consent.deny')}</button>
</form>`,
    ),
  )
}

/** An authorization code for the approved request, and where the person takes it to the client. */
async function issueCode(app: FastifyInstance, valid: ValidRequest, userId: string, accountId: string): Promise<string> {
  const code = randomToken(32)
  await insertAuthorizationCode(app.db, {
    code,
    clientId: valid.client.clientId,
    userId,
    accountId,
    redirectUri: valid.redirectUri,
    codeChallenge: valid.codeChallenge,
    scope: valid.scope,
    resource: valid.resource,
  })
  const url = new URL(valid.redirectUri)
  url.searchParams.set('code', code)
  if (valid.state !== undefined) url.searchParams.set('state', valid.state)
  url.searchParams.set('iss', app.config.BASE_URL)
  return url.toString()
}

/**
 * The authorization endpoint, checked in the order of RFC 6749 4.1.2.1: first the client and the
 * exact redirect URI (errors shown on a page), then everything else (errors sent to the client
 * with state and, per RFC 9207, iss: through a link on a page when the person has not acted yet,
 * at once after the consent form).
 */
export default async function authorizeRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/oauth/authorize',
    {
      config: { operation: 'oauth.authorize', ...routeLimit(app.config, 'oauth.authorize') },
      schema: {
        summary: 'Authorization endpoint: sign-in and consent',
        tags: ['identity'],
        querystring: AuthorizationQuery,
        response: { 200: Html, 303: Type.Null(), 400: Html },
      },
    },
    async (request, reply) => {
      const checked = await check(app, request.query)
      if (!checked.ok) return 'page' in checked ? errorPage(reply, checked.page) : refusalPage(reply, checked)
      if (!request.webUser) return reply.redirect(`/signin?return_to=${encodeURIComponent(request.url)}`, 303)
      return consentPage(
        reply,
        request.webUser.email,
        checked.request,
        request.query,
        await accountChoice(app, request, request.webUser.id),
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
      const { decision, account_id: accountId, _csrf: _token, ...params } = request.body
      const checked = await check(app, params)
      if (!checked.ok) return 'page' in checked ? errorPage(reply, checked.page) : reply.redirect(checked.redirect, 303)
      if (!request.webUser) {
        const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
        return reply.redirect(`/signin?return_to=${encodeURIComponent(`/oauth/authorize?${query}`)}`, 303)
      }
      const valid = checked.request
      if (decision === 'deny') {
        return reply.redirect(
          errorRedirect(app.config.BASE_URL, valid.redirectUri, valid.state, 'access_denied', 'The person denied the request'),
          303,
        )
      }
      const account = chosenAccount(await accountChoice(app, request, request.webUser.id), accountId)
      if (!account) return errorPage(reply, 'consent.error.notMember')
      return reply.redirect(await issueCode(app, valid, request.webUser.id, account), 303)
    },
  )
}
