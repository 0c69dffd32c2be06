import { SignJWT, generateKeyPair, importJWK, type JWK, type JWTPayload } from 'jose'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { probeRoutes } from './probe.ts'

const { app, config, databaseUrl } = await buildTestApp({ plugins: [probeRoutes] })
const base = config.BASE_URL
const mcp = `${base}/mcp`
const metadata = `${base}/.well-known/oauth-protected-resource/mcp`

// The service's own private key, opened the way the signer opens it, to forge tokens that differ in one claim only.
const keyRow = await app.db.selectFrom('signing_keys').selectAll().where('status', '=', 'active').executeTakeFirstOrThrow()
const ownKey = await importJWK(JSON.parse(app.keyring.open(keyRow.private_jwk_sealed, `signing_keys:${keyRow.kid}`)) as JWK, 'RS256')

const good = (): JWTPayload => ({
  iss: base,
  sub: 'usr_1',
  aud: mcp,
  client_id: 'cli_1',
  scope: 'mcp:read',
  jti: `at_${Math.random()}`,
  iat: Math.floor(Date.now() / 1000),
  exp: Math.floor(Date.now() / 1000) + 600,
})

async function sign(payload: JWTPayload, header: { typ?: string; kid?: string } = {}, key: Parameters<SignJWT['sign']>[0] = ownKey) {
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: keyRow.kid, ...header }).sign(key)
}

const call = (authorization?: string, url = '/probe/mcp/read') =>
  app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} })

describe('the bearer guard of /mcp and /v1', () => {
  it('accepts a well-formed token of this issuer and exposes who it speaks for', async () => {
    const res = await call(`Bearer ${await sign({ ...good(), account_id: 'acct_1' })}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ subject: 'usr_1', clientId: 'cli_1', scopes: ['mcp:read'], accountId: 'acct_1' })
  })

  it('challenges a request without credentials with the resource metadata and scope, and no error code', async () => {
    const res = await call()
    expect(res.statusCode).toBe(401)
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadata}", scope="mcp:read"`)
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(res.json()).toMatchObject({ status: 401, code: 'invalid_token' })
    const basic = await call('Basic dXNlcjpwYXNz')
    expect(basic.statusCode).toBe(401)
    expect(basic.headers['www-authenticate']).toContain('error="invalid_request"')
  })

  it('refuses alg none, HS256 (also keyed with the public key), a foreign key, wrong issuer, audience or typ, and expired tokens', async () => {
    const payload = good()
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const publicJwk = keyRow.public_jwk as { n: string }
    const foreign = (await generateKeyPair('RS256')).privateKey
    const cases: Record<string, string> = {
      none: `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(payload)}.`,
      hs256: await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: keyRow.kid })
        .sign(new TextEncoder().encode('a-shared-secret-of-enough-length!')),
      hs256PublicKey: await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: keyRow.kid })
        .sign(Buffer.from(publicJwk.n, 'base64url')),
      foreignKey: await sign(payload, {}, foreign),
      wrongIssuer: await sign({ ...payload, iss: 'https://issuer.example' }),
      wrongAudience: await sign({ ...payload, aud: `${base}/v1` }),
      wrongTyp: await sign(payload, { typ: 'JWT' }),
      expired: await sign({ ...payload, iat: payload.iat! - 7200, exp: payload.iat! - 3600 }),
      noClientId: await sign({ ...payload, client_id: undefined }),
      garbage: 'abc.def.ghi',
    }
    for (const [name, token] of Object.entries(cases)) {
      const res = await call(`Bearer ${token}`)
      expect(res.statusCode, name).toBe(401)
      expect(res.headers['www-authenticate'], name).toMatch(
        new RegExp(
          `^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${metadata.replace(/[/.]/g, '\\$&')}", scope="mcp:read"$`,
        ),
      )
    }
    expect((await call(`Bearer ${cases['expired']}`)).headers['www-authenticate']).toContain('has expired')
  })

  it('answers 403 insufficient_scope for a valid token without the scope', async () => {
    const res = await call(`Bearer ${await sign(good())}`, '/probe/mcp/tools')
    expect(res.statusCode).toBe(403)
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"')
    expect(res.headers['www-authenticate']).toContain('scope="mcp:tools"')
  })

  it.runIf(onPostgres)('sees a revocation made by another instance on the same database', async () => {
    const other = await buildTestApp({ databaseUrl, plugins: [probeRoutes] })
    const token = await sign(good())
    expect(
      (await other.app.inject({ method: 'GET', url: '/probe/mcp/read', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(200)
    const revoked = await app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      payload: `token=${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(revoked.statusCode).toBe(200)
    expect(
      (await other.app.inject({ method: 'GET', url: '/probe/mcp/read', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(401)
  })
})
