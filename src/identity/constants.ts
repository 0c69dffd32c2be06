import type { Config } from '../config.ts'

/** Scopes of the MCP server and of the REST API (INTERFACE.md section 5). */
export const MCP_SCOPES = ['mcp:read', 'mcp:tools'] as const
export const REST_SCOPES = ['read:sites', 'write:pages', 'manage:leads', 'manage:webhooks', 'manage:tokens'] as const
export const ALL_SCOPES: readonly string[] = [...MCP_SCOPES, ...REST_SCOPES]

export const PRE_CLAIM_SCOPES = ['mcp:read']
export const POST_CLAIM_SCOPES = ['mcp:read', 'mcp:tools']
/** What a claimed agent may ask for on /v1: the site and lead scopes, not token or webhook management. */
export const AGENT_REST_SCOPES = ['read:sites', 'write:pages', 'manage:leads']

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
/** The claim grant of this service, and the reference profile's name that agent clients hard-code. */
export const CLAIM_GRANTS = ['urn:presence:agent-auth:grant-type:claim', 'urn:workos:agent-auth:grant-type:claim'] as const

/** Lifetimes in seconds. */
export const ACCESS_TOKEN_TTL = 3600
export const IDENTITY_ASSERTION_TTL = 15 * 60
export const REGISTRATION_TTL = 24 * 3600
export const CLAIM_ATTEMPT_TTL = 600
export const CLAIM_POLL_INTERVAL = 5
export const AUTHORIZATION_CODE_TTL = 120
export const REFRESH_TOKEN_TTL = 30 * 24 * 3600
export const SIGN_IN_CODE_TTL = 10 * 60
export const SIGN_IN_CODE_ATTEMPTS = 5
export const WEB_SESSION_TTL = 12 * 3600
/** A wrong account confirming a user code this many times ends the claim attempt. */
export const CLAIM_ENTRY_ATTEMPTS = 5

/** The `typ` header of identity assertions, so an access token can never pass for one (and back). */
export const IDENTITY_ASSERTION_TYP = 'identity-assertion+jwt'

export interface Resources {
  mcp: string
  rest: string
}

const resourcesOf = new WeakMap<Config, Resources>()

/** RFC 8707 resource indicators: the MCP server and the REST API (made once per configuration; every token request asks). */
export function resources(config: Config): Resources {
  let found = resourcesOf.get(config)
  if (!found) {
    found = Object.freeze({ mcp: `${config.BASE_URL}/mcp`, rest: `${config.API_URL}/v1` })
    resourcesOf.set(config, found)
  }
  return found
}

export function scopesOf(resource: string, config: Config): readonly string[] {
  return resource === resources(config).rest ? REST_SCOPES : MCP_SCOPES
}

/** Splits a scope parameter; undefined for a malformed one (RFC 6749 3.3: space-delimited, no empty items). */
export function parseScope(scope: string | undefined): string[] | undefined {
  if (scope === undefined) return []
  const items = scope.split(' ')
  if (items.some((item) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(item))) return undefined
  return [...new Set(items)]
}
