import { readFileSync } from 'node:fs'
import { Type } from 'typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { sha256Hex } from '../../infra/crypto.ts'
import { OPENAPI_INFO } from '../../infra/openapi.ts'
import { ALL_SCOPES, CLAIM_GRANTS, JWT_BEARER_GRANT, MCP_SCOPES, REST_SCOPES, resources } from '../constants.ts'

const CACHE = 'public, max-age=3600'
const Doc = Type.Object({}, { additionalProperties: true })

interface Skill {
  name: string
  description: string
  body: Buffer
  digest: string
}

const SKILL_NAMES = ['agent-registration', 'web-presence-mcp'] as const

/** The SKILL.md files shipped beside this module; their description comes from the front matter. */
function loadSkills(): Skill[] {
  return SKILL_NAMES.map((name) => {
    const body = readFileSync(new URL(`./skills/${name}/SKILL.md`, import.meta.url))
    const description = /^description: (.+)$/m.exec(body.toString('utf8'))?.[1] ?? name
    return { name, description, body, digest: `sha256:${sha256Hex(body)}` }
  })
}

/**
 * Discovery documents, all GET and HEAD, public and cacheable:
 * RFC 8414 authorization-server metadata (with the agent_auth block), RFC 9728 protected-resource
 * metadata (root, /mcp, /v1), RFC 9727 api-catalog, agent-skills discovery 0.2.0, MCP server card.
 */
export default async function discoveryRoutes(app: FastifyInstance) {
  const { BASE_URL: base, API_URL: api } = app.config
  const { mcp, rest } = resources(app.config)
  const json = (reply: FastifyReply, type: string, body: unknown) => reply.type(type).header('cache-control', CACHE).send(body)

  const authorizationServer = {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT, ...CLAIM_GRANTS],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${base}/.well-known/agent-skills/index.json`,
    agent_auth: {
      identity_endpoint: `${base}/agent/identity`,
      claim_endpoint: `${base}/agent/identity/claim`,
      verification_uri: `${base}/agent/identity/verify`,
      identity_types_supported: ['anonymous'],
      claim_grant_types_supported: [...CLAIM_GRANTS],
      pre_claim_scopes: ['mcp:read'],
      post_claim_scopes: ['mcp:read', 'mcp:tools'],
    },
  }

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { operation: 'discovery.authorization_server' },
      schema: { summary: 'Authorization server metadata (RFC 8414)', tags: ['discovery'], response: { 200: Doc } },
    },
    (_request, reply) => json(reply, 'application/json; charset=utf-8', authorizationServer),
  )

  const protectedResource = (resource: string, scopes: readonly string[], name: string) => ({
    resource,
    authorization_servers: [base],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    jwks_uri: `${base}/.well-known/jwks.json`,
    resource_name: name,
    resource_documentation: `${base}/.well-known/agent-skills/index.json`,
  })
  const resourceDocs: Array<[string, object]> = [
    ['/.well-known/oauth-protected-resource', protectedResource(base, ALL_SCOPES, 'Web Presence')],
    ['/.well-known/oauth-protected-resource/mcp', protectedResource(mcp, MCP_SCOPES, 'Web Presence MCP server')],
    ['/.well-known/oauth-protected-resource/v1', protectedResource(rest, REST_SCOPES, 'Web Presence REST API')],
  ]
  for (const [path, body] of resourceDocs) {
    app.get(
      path,
      {
        config: {
          operation: `discovery.protected_resource${path.slice('/.well-known/oauth-protected-resource'.length).replace('/', '.')}`,
        },
        schema: { summary: 'Protected resource metadata (RFC 9728)', tags: ['discovery'], response: { 200: Doc } },
      },
      (_request, reply) => json(reply, 'application/json; charset=utf-8', body),
    )
  }

  // RFC 9727: a linkset naming each API with its description, documentation and status.
  const catalogUrl = `${base}/.well-known/api-catalog`
  const apiCatalog = {
    linkset: [
      {
        anchor: rest,
        'service-desc': [{ href: `${api}/openapi.json`, type: 'application/openapi+json' }],
        'service-doc': [{ href: `${base}/.well-known/agent-skills/index.json`, type: 'application/json' }],
        status: [{ href: `${base}/api/ready`, type: 'application/json' }],
      },
      {
        anchor: mcp,
        'service-desc': [{ href: `${base}/.well-known/mcp/server-card.json`, type: 'application/json' }],
        'service-doc': [{ href: `${base}/.well-known/agent-skills/web-presence-mcp/SKILL.md`, type: 'text/markdown' }],
        status: [{ href: `${base}/api/ready`, type: 'application/json' }],
      },
    ],
  }
  app.get(
    '/.well-known/api-catalog',
    {
      config: { operation: 'discovery.api_catalog' },
      schema: { summary: 'API catalog (RFC 9727)', tags: ['discovery'], response: { 200: Doc } },
    },
    (_request, reply) =>
      json(
        reply.header('link', `<${catalogUrl}>; rel="api-catalog"`),
        'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
        apiCatalog,
      ),
  )

  const skills = loadSkills()
  const skillIndex = {
    $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
    skills: skills.map((s) => ({
      name: s.name,
      type: 'skill-md',
      description: s.description,
      url: `/.well-known/agent-skills/${s.name}/SKILL.md`,
      digest: s.digest,
    })),
  }
  app.get(
    '/.well-known/agent-skills/index.json',
    {
      config: { operation: 'discovery.skills' },
      schema: { summary: 'Agent skills index (discovery 0.2.0)', tags: ['discovery'], response: { 200: Doc } },
    },
    (_request, reply) => json(reply, 'application/json; charset=utf-8', skillIndex),
  )
  for (const skill of skills) {
    app.get(
      `/.well-known/agent-skills/${skill.name}/SKILL.md`,
      { config: { operation: `discovery.skill.${skill.name}` }, schema: { summary: `Skill ${skill.name}`, tags: ['discovery'] } },
      (_request, reply) =>
        reply
          .type('text/markdown; charset=utf-8')
          .header('cache-control', CACHE)
          .header('etag', `"${skill.digest.slice(7, 50)}"`)
          .send(skill.body),
    )
  }

  const serverCard = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
    version: '1.0',
    protocolVersion: '2026-07-28',
    serverInfo: { name: 'web-presence', title: 'Web Presence', version: OPENAPI_INFO.version },
    description: 'Build and manage websites, pages, domains and leads of a Web Presence account.',
    documentationUrl: `${base}/.well-known/agent-skills/web-presence-mcp/SKILL.md`,
    transport: { type: 'streamable-http', endpoint: mcp },
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    authentication: {
      required: true,
      schemes: ['oauth2'],
      protected_resource_metadata: `${base}/.well-known/oauth-protected-resource/mcp`,
      authorization_server: `${base}/.well-known/oauth-authorization-server`,
      scopes: [...MCP_SCOPES],
    },
  }
  app.get(
    '/.well-known/mcp/server-card.json',
    {
      config: { operation: 'discovery.mcp_server_card' },
      schema: { summary: 'MCP server card', tags: ['discovery'], response: { 200: Doc } },
    },
    (_request, reply) => json(reply, 'application/json; charset=utf-8', serverCard),
  )
}
