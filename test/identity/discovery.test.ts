import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'

const { app, config } = await buildTestApp()
const base = config.BASE_URL

describe('discovery documents', () => {
  it('serves RFC 8414 metadata with the agent_auth block, on GET and HEAD', async () => {
    const res = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.headers['cache-control']).toBe('public, max-age=3600')
    const body = res.json()
    expect(body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      token_endpoint_auth_methods_supported: ['none'],
      agent_auth: {
        identity_endpoint: `${base}/agent/identity`,
        claim_endpoint: `${base}/agent/identity/claim`,
        identity_types_supported: ['anonymous'],
      },
    })
    expect(body.grant_types_supported).toEqual(
      expect.arrayContaining([
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
        'urn:presence:agent-auth:grant-type:claim',
        'urn:workos:agent-auth:grant-type:claim',
      ]),
    )
    expect(body.scopes_supported).toEqual([
      'mcp:read',
      'mcp:tools',
      'read:sites',
      'write:pages',
      'manage:leads',
      'manage:webhooks',
      'manage:tokens',
    ])
    const head = await app.inject({ method: 'HEAD', url: '/.well-known/oauth-authorization-server' })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8')
  })

  it('serves RFC 9728 metadata at the root and the path-suffixed forms of /mcp and /v1', async () => {
    const cases: Array<[string, string, string[]]> = [
      [
        '/.well-known/oauth-protected-resource',
        base,
        ['mcp:read', 'mcp:tools', 'read:sites', 'write:pages', 'manage:leads', 'manage:webhooks', 'manage:tokens'],
      ],
      ['/.well-known/oauth-protected-resource/mcp', `${base}/mcp`, ['mcp:read', 'mcp:tools']],
      [
        '/.well-known/oauth-protected-resource/v1',
        `${config.API_URL}/v1`,
        ['read:sites', 'write:pages', 'manage:leads', 'manage:webhooks', 'manage:tokens'],
      ],
    ]
    for (const [url, resource, scopes] of cases) {
      const res = await app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(200)
      expect(res.headers['cache-control']).toMatch(/public/)
      expect(res.json()).toMatchObject({
        resource,
        authorization_servers: [base],
        scopes_supported: scopes,
        bearer_methods_supported: ['header'],
      })
      expect((await app.inject({ method: 'HEAD', url })).statusCode).toBe(200)
    }
  })

  it('serves the RFC 9727 api-catalog as a linkset, with the Link header on HEAD', async () => {
    const res = await app.inject({ method: 'GET', url: '/.well-known/api-catalog' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/linkset\+json; profile="https:\/\/www.rfc-editor.org\/info\/rfc9727"/)
    const { linkset } = res.json()
    expect(linkset.map((l: { anchor: string }) => l.anchor)).toEqual([`${config.API_URL}/v1`, `${base}/mcp`])
    expect(linkset[0]['service-desc'][0]).toEqual({ href: `${config.API_URL}/openapi.json`, type: 'application/openapi+json' })
    const head = await app.inject({ method: 'HEAD', url: '/.well-known/api-catalog' })
    expect(head.statusCode).toBe(200)
    expect(head.headers['link']).toBe(`<${base}/.well-known/api-catalog>; rel="api-catalog"`)
  })

  it('lists agent skills in the 0.2.0 format, each SKILL.md served with a matching sha256 digest', async () => {
    const res = await app.inject({ method: 'GET', url: '/.well-known/agent-skills/index.json' })
    expect(res.statusCode).toBe(200)
    const index = res.json()
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json')
    expect(index.skills.length).toBeGreaterThanOrEqual(2)
    for (const skill of index.skills) {
      expect(skill).toEqual({
        name: expect.stringMatching(/^[a-z0-9-]{1,64}$/),
        type: 'skill-md',
        description: expect.any(String),
        url: `/.well-known/agent-skills/${skill.name}/SKILL.md`,
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      })
      const file = await app.inject({ method: 'GET', url: skill.url })
      expect(file.statusCode).toBe(200)
      expect(file.headers['content-type']).toBe('text/markdown; charset=utf-8')
      expect(`sha256:${createHash('sha256').update(file.rawPayload).digest('hex')}`).toBe(skill.digest)
      expect(file.body.startsWith(`---\nname: ${skill.name}\ndescription: `)).toBe(true)
    }
  })

  it('serves the MCP server card naming the endpoint and its authorization', async () => {
    const res = await app.inject({ method: 'GET', url: '/.well-known/mcp/server-card.json' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      serverInfo: { name: 'web-presence' },
      transport: { type: 'streamable-http', endpoint: `${base}/mcp` },
      authentication: { required: true, protected_resource_metadata: `${base}/.well-known/oauth-protected-resource/mcp` },
    })
  })

  it('serves the JWKS as application/jwk-set+json', async () => {
    const res = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/)
    expect(res.json().keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' })
  })
})
