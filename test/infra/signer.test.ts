import { createHmac, randomBytes } from 'node:crypto'
import { calculateJwkThumbprint, decodeProtectedHeader, errors } from 'jose'
import { describe, expect, it } from 'vitest'
import { createKeyring } from '../../src/infra/crypto.ts'
import { createSigner } from '../../src/infra/signer.ts'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { openTestStore } from '../helpers/store.ts'

const issuer = 'https://issuer.test'
const keyring = createKeyring(randomBytes(32))

/** A fresh database as a first start finds it, without the signing key the suite's template holds (test/setup/templates.ts). */
async function keylessStore() {
  const store = await openTestStore()
  await store.db.deleteFrom('signing_keys').execute()
  return store
}

const store = await keylessStore()
const signer = await createSigner(store.db, keyring, issuer)

function b64(value: unknown) {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

describe('signer', () => {
  it('signs RS256 tokens whose kid is the RFC 7638 thumbprint of a key in the JWKS', async () => {
    const token = await signer.sign(
      { scope: 'mcp:read' },
      { subject: 'reg_1', audience: 'https://api.test', expiresInSeconds: 60, typ: 'at+jwt' },
    )
    const header = decodeProtectedHeader(token)
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' })
    const jwk = signer.jwks().keys.find((k) => k.kid === header.kid)
    expect(jwk).toBeDefined()
    expect(await calculateJwkThumbprint(jwk!, 'sha256')).toBe(header.kid)
    const { payload } = await signer.verify(token, { audience: 'https://api.test', typ: 'at+jwt' })
    expect(payload).toMatchObject({ iss: issuer, sub: 'reg_1', scope: 'mcp:read' })
    expect(payload.exp! - payload.iat!).toBe(60)
    expect(typeof payload.jti).toBe('string')
  })

  it('remembers a verified token until it expires, per audience and type, and still refuses it elsewhere', async () => {
    const token = await signer.sign({ scope: 'x' }, { expiresInSeconds: 2, audience: 'a', typ: 'at+jwt' })
    const first = await signer.verify(token, { audience: 'a', typ: 'at+jwt', clockToleranceSeconds: 0 })
    expect(await signer.verify(token, { audience: 'a', typ: 'at+jwt', clockToleranceSeconds: 0 })).toBe(first)
    expect(Object.isFrozen(first.payload)).toBe(true)
    // Remembered for these options only: another audience or type is checked, and refused.
    await expect(signer.verify(token, { audience: 'b', typ: 'at+jwt', clockToleranceSeconds: 0 })).rejects.toBeInstanceOf(
      errors.JWTClaimValidationFailed,
    )
    await expect(signer.verify(token, { audience: 'a', typ: 'JWT', clockToleranceSeconds: 0 })).rejects.toThrow()
    // Past its exp it is verified again, and so refused as expired.
    await new Promise((resolve) => setTimeout(resolve, first.payload.exp! * 1000 - Date.now() + 50))
    await expect(signer.verify(token, { audience: 'a', typ: 'at+jwt', clockToleranceSeconds: 0 })).rejects.toBeInstanceOf(errors.JWTExpired)
  })

  it('stores the private key sealed, never in the clear', async () => {
    const rows = await store.db.selectFrom('signing_keys').selectAll().execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]!.private_jwk_sealed.startsWith('v1.')).toBe(true)
    expect(rows[0]!.private_jwk_sealed).not.toContain('"d"')
    expect(JSON.stringify(rows[0]!.public_jwk)).not.toContain('"d"')
  })

  it('refuses unsigned, HS256, tampered, foreign, expired and mis-addressed tokens', async () => {
    const good = await signer.sign({ scope: 'x' }, { expiresInSeconds: 60, audience: 'a' })
    const [h, p] = good.split('.') as [string, string]
    const now = Math.floor(Date.now() / 1000)
    const claims = { iss: issuer, iat: now, exp: now + 60, jti: 'j', aud: 'a' }
    const kid = decodeProtectedHeader(good).kid
    const none = `${b64({ alg: 'none', kid })}.${b64(claims)}.`
    const n = signer.jwks().keys[0]!.n!
    const hsInput = `${b64({ alg: 'HS256', kid })}.${b64(claims)}`
    const hs256 = `${hsInput}.${createHmac('sha256', n).update(hsInput).digest('base64url')}`
    const tampered = `${h}.${b64({ ...claims, scope: 'admin' })}.${good.split('.')[2]}`
    const other = await createSigner((await keylessStore()).db, keyring, 'https://other.test')
    const foreign = await other.sign({}, { expiresInSeconds: 60, audience: 'a' })
    const expired = await signer.sign({}, { expiresInSeconds: -60, audience: 'a' })

    for (const token of [none, hs256, tampered, foreign, expired]) await expect(signer.verify(token, { audience: 'a' })).rejects.toThrow()
    await expect(signer.verify(expired, { audience: 'a' })).rejects.toBeInstanceOf(errors.JWTExpired)
    await expect(signer.verify(good, { audience: 'b' })).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed)
    await expect(signer.verify(good, { audience: 'a', typ: 'at+jwt' })).rejects.toThrow()
    expect(p).toBeTruthy()
  })

  it('keeps the same key across restarts', async () => {
    const again = await createSigner(store.db, keyring, issuer)
    expect(again.jwks().keys.map((k) => k.kid)).toEqual(signer.jwks().keys.map((k) => k.kid))
  })

  it('rotates: new tokens use the new key, old tokens still verify, the JWKS lists both', async () => {
    const rotating = await createSigner((await keylessStore()).db, keyring, issuer)
    const before = await rotating.sign({}, { expiresInSeconds: 60 })
    const oldKid = decodeProtectedHeader(before).kid
    await rotating.rotate()
    const after = await rotating.sign({}, { expiresInSeconds: 60 })
    expect(decodeProtectedHeader(after).kid).not.toBe(oldKid)
    expect(rotating.jwks().keys).toHaveLength(2)
    await expect(rotating.verify(before)).resolves.toBeTruthy()
    await expect(rotating.verify(after)).resolves.toBeTruthy()
  })

  it.runIf(onPostgres)('creates exactly one key when several instances start at once', async () => {
    const first = await keylessStore()
    const others = await Promise.all(Array.from({ length: 3 }, () => openTestStore(first.url)))
    const signers = await Promise.all([first, ...others].map((s) => createSigner(s.db, keyring, issuer)))
    const kids = new Set(signers.map((s) => s.jwks().keys[0]!.kid))
    expect(kids.size).toBe(1)
    expect(await first.db.selectFrom('signing_keys').select('kid').execute()).toHaveLength(1)
  })
})

describe('GET /.well-known/jwks.json', () => {
  it('serves the public keys as a JWK set', async () => {
    const { app } = await buildTestApp()
    const res = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/)
    const { keys } = res.json() as { keys: Array<Record<string, string>> }
    expect(keys.length).toBeGreaterThanOrEqual(1)
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' })
    expect(keys[0]).not.toHaveProperty('d')
    expect(keys[0]!['kid']).toBe(await calculateJwkThumbprint(keys[0]!, 'sha256'))
  })
})
