import type { FastifyInstance } from 'fastify'
import type { Db } from '../../infra/db.ts'

export interface Client {
  clientId: string
  clientName: string
  redirectUris: string[]
  grantTypes: string[]
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])

/**
 * Redirect URI rules (RFC 6749 3.1.2, RFC 8252 7.3, OAuth 2.0 Security BCP 4.1): an absolute
 * https URL, or http only on a loopback host; no fragment, no user info. Returns why not, or undefined.
 */
export function redirectUriProblem(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `${value} is not an absolute URL`
  }
  if (url.hash || value.includes('#')) return 'a redirect URI must not contain a fragment'
  if (url.username || url.password) return 'a redirect URI must not contain user information'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined
  return 'a redirect URI must use https, or http on a loopback address'
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves a Client ID Metadata Document (oauth/client-metadata.ts); identity room only. */
    resolveClientMetadata: (clientId: string) => Promise<Client | undefined>
  }
}

/** A client registered here (RFC 7591), or one named by its metadata document URL. */
export async function findClient(app: FastifyInstance, clientId: string): Promise<Client | undefined> {
  if (clientId.length > 2048) return undefined
  if (clientId.startsWith('https://')) return app.resolveClientMetadata(clientId)
  const row = await app.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst()
  if (!row) return undefined
  return { clientId: row.client_id, clientName: row.client_name, redirectUris: row.redirect_uris, grantTypes: row.grant_types }
}

/** Stores a client registered through RFC 7591 dynamic registration. */
export async function insertRegisteredClient(db: Db, client: Client & { createdAt: Date }): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values({
      client_id: client.clientId,
      client_name: client.clientName,
      redirect_uris: JSON.stringify(client.redirectUris),
      grant_types: JSON.stringify(client.grantTypes),
      source: 'registered',
      created_at: client.createdAt,
    })
    .execute()
}
