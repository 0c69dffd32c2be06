import type { FastifyInstance } from 'fastify'
import { FetchError, type SafeFetcher } from '../../infra/fetcher.ts'
import { redirectUriProblem, type Client } from '../stores/clients.ts'

/** A fetched document is used this long before it is fetched again. */
const FRESH_MS = 3600_000
const MAX_BYTES = 10_240

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id that
 * is an https URL names a JSON document describing the client. Rules enforced:
 * - the URL is https with a path, without fragment, user info or dot segments;
 * - it is fetched only through the SSRF-safe fetcher, without following redirects, 10 KB at most;
 * - the document's client_id equals the URL exactly; it is a public client (auth method none,
 *   no secret) with redirect URIs that pass the same rules as registered clients;
 * - a document is kept for an hour; a failed fetch refuses the client (no stale fallback).
 */
export function clientMetadataResolver(app: FastifyInstance, fetcher: SafeFetcher) {
  return async function resolveClientMetadata(clientId: string): Promise<Client | undefined> {
    if (!isMetadataUrl(clientId)) return undefined
    const cached = await app.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('source', '=', 'metadata_document')
      .executeTakeFirst()
    if (cached && Date.now() - cached.refreshed_at.getTime() < FRESH_MS) {
      return { clientId, clientName: cached.client_name, redirectUris: cached.redirect_uris, grantTypes: cached.grant_types }
    }
    let document: Record<string, unknown>
    try {
      const response = await fetcher.fetch(clientId, {
        headers: { accept: 'application/json' },
        maxRedirects: 0,
        maxBytes: MAX_BYTES,
        timeoutMs: 5000,
      })
      if (response.status !== 200) throw new Error(`status ${response.status}`)
      document = JSON.parse(response.text()) as Record<string, unknown>
    } catch (error) {
      app.log.info(
        { clientId, reason: error instanceof FetchError ? error.code : (error as Error).message },
        'client metadata document unavailable',
      )
      return undefined
    }
    const client = parseDocument(clientId, document)
    if (typeof client === 'string') {
      app.log.info({ clientId, reason: client }, 'client metadata document refused')
      return undefined
    }
    const values = {
      client_name: client.clientName,
      redirect_uris: JSON.stringify(client.redirectUris),
      grant_types: JSON.stringify(client.grantTypes),
      refreshed_at: new Date(),
    }
    await app.db
      .insertInto('oauth_clients')
      .values({ client_id: clientId, source: 'metadata_document', ...values })
      .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
      .execute()
    return client
  }
}

export function isMetadataUrl(value: string): boolean {
  if (!value.startsWith('https://') || value.length > 2048) return false
  try {
    const url = new URL(value)
    if (url.hash || value.includes('#') || url.username || url.password) return false
    if (url.pathname === '/' || /\/\.\.?(\/|$)/.test(url.pathname)) return false
    return url.href === value
  } catch {
    return false
  }
}

function parseDocument(clientId: string, doc: Record<string, unknown>): Client | string {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 'not a JSON object'
  if (doc['client_id'] !== clientId) return 'client_id does not match the document URL'
  const method = doc['token_endpoint_auth_method'] ?? 'none'
  if (method !== 'none' || 'client_secret' in doc) return 'only public clients may use a metadata document'
  const redirectUris = doc['redirect_uris']
  if (
    !Array.isArray(redirectUris) ||
    !redirectUris.length ||
    redirectUris.length > 10 ||
    !redirectUris.every((u) => typeof u === 'string' && !redirectUriProblem(u))
  ) {
    return 'redirect_uris are missing or not allowed'
  }
  const name =
    typeof doc['client_name'] === 'string' && doc['client_name'].trim() ? doc['client_name'].trim().slice(0, 200) : new URL(clientId).host
  return { clientId, clientName: name, redirectUris: redirectUris as string[], grantTypes: ['authorization_code', 'refresh_token'] }
}
