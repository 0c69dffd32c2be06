import { createPrivateKey, sign as rsaSign, type KeyObject } from 'node:crypto'
import { promisify } from 'node:util'
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  type JWTVerifyResult,
} from 'jose'
import { sql } from 'kysely'
import type { Keyring } from './crypto.ts'
import { newId } from './crypto.ts'
import type { Db } from './db.ts'

const ALG = 'RS256'
const signAsync = promisify(rsaSign)
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const KEY_LOCK = 727_002
/** A retired key stays in the JWKS this long, so tokens it signed keep verifying until they expire. */
const RETIRED_KEY_GRACE_MS = 7 * 24 * 3600 * 1000
/** Tokens remembered as verified (see `verify`); the oldest is forgotten first. */
const VERIFIED_MAX = 10_000

export interface SignOptions {
  typ?: string
  subject?: string
  audience?: string | string[]
  expiresInSeconds: number
  jti?: string
}

export interface VerifyOptions {
  audience?: string | string[]
  typ?: string
  /** Seconds of clock skew tolerated on exp/nbf/iat. */
  clockToleranceSeconds?: number
}

export interface SignedJwt {
  token: string
  /** The claims as signed, `iat`, `exp` and `jti` included. */
  payload: JWTPayload
}

export interface Signer {
  readonly issuer: string
  sign(claims: JWTPayload, options: SignOptions): Promise<string>
  /** `sign`, answering the claims it signed too, so a caller needing `exp` need not decode the token again. */
  signJwt(claims: JWTPayload, options: SignOptions): Promise<SignedJwt>
  verify(token: string, options?: VerifyOptions): Promise<JWTVerifyResult>
  /** What `verify` would answer from memory for a token it verified before under these options, without waiting; else undefined. */
  remembered(token: string, options?: VerifyOptions): JWTVerifyResult | undefined
  /** The public keys: the current one and those retired within the grace period. */
  jwks(): { keys: JWK[] }
  /** Makes a new key current and retires the old one. */
  rotate(): Promise<void>
}

interface LoadedKey {
  kid: string
  publicJwk: JWK
  publicKey: CryptoKey
  createdAt: Date
}

/**
 * The options a token was verified under, kept beside it: verified tokens are remembered by the
 * token itself, not copied into a longer key on every call.
 */
const optionsKey = (options: VerifyOptions) =>
  `${options.typ ?? ''} ${typeof options.audience === 'string' ? options.audience : (options.audience ?? []).join(',')} ${options.clockToleranceSeconds ?? 5}`

/**
 * RS256 signing with keys generated on first start. Private keys are stored sealed under the data
 * key; `kid` is the RFC 7638 thumbprint of the public key.
 */
export async function createSigner(db: Db, keyring: Keyring, issuer: string): Promise<Signer> {
  let current!: { kid: string; privateKey: KeyObject; headers: Map<string, string> }
  let verifying = new Map<string, LoadedKey>()
  const verified = new Map<string, { options: string; result: JWTVerifyResult; until: number }>()

  const load = async () => {
    await ensureActiveKey(db, keyring)
    const rows = await db
      .selectFrom('signing_keys')
      .selectAll()
      .where('alg', '=', ALG)
      .where((eb) => eb.or([eb('status', '=', 'active'), eb('retired_at', '>', new Date(Date.now() - RETIRED_KEY_GRACE_MS))]))
      .orderBy('created_at', 'desc')
      .execute()
    const next = new Map<string, LoadedKey>()
    for (const row of rows) {
      const publicJwk = { ...(row.public_jwk as JWK), kid: row.kid, alg: ALG, use: 'sig' }
      next.set(row.kid, { kid: row.kid, publicJwk, publicKey: (await importJWK(publicJwk, ALG)) as CryptoKey, createdAt: row.created_at })
      if (row.status === 'active') {
        const privateJwk = JSON.parse(keyring.open(row.private_jwk_sealed, `signing_keys:${row.kid}`)) as JWK
        current = {
          kid: row.kid,
          privateKey: createPrivateKey({ key: privateJwk as import('node:crypto').JsonWebKey, format: 'jwk' }),
          headers: new Map(),
        }
      }
    }
    verifying = next
  }
  await load()

  // A token signed by a key another instance just rotated in: reload once, then decide.
  const keyFor = async (header: { kid?: string; alg?: string }) => {
    if (header.alg !== ALG || !header.kid) throw new Error('unexpected key')
    let key = verifying.get(header.kid)
    if (!key) {
      await load()
      key = verifying.get(header.kid)
    }
    if (!key) throw new Error('unknown key id')
    return key.publicKey
  }

  /** The encoded protected header of the current key for a `typ`: the same few bytes for every token. */
  const headerOf = (key: typeof current, typ: string) => {
    let encoded = key.headers.get(typ)
    if (encoded === undefined) {
      encoded = base64url({ alg: ALG, kid: key.kid, typ })
      key.headers.set(typ, encoded)
    }
    return encoded
  }

  const signJwt = async (claims: JWTPayload, options: SignOptions): Promise<SignedJwt> => {
    // The RSA signature runs in libuv's thread pool (node:crypto's callback form), so the event
    // loop keeps serving while tokens are signed; jose's WebCrypto path signs on the main thread.
    const key = current
    const now = Math.floor(Date.now() / 1000)
    const payload: JWTPayload = { ...claims, iss: issuer, iat: now, exp: now + options.expiresInSeconds, jti: options.jti ?? newId('jti') }
    if (options.subject) payload.sub = options.subject
    if (options.audience) payload.aud = options.audience
    const signingInput = `${headerOf(key, options.typ ?? 'JWT')}.${base64url(payload)}`
    const signature = await signAsync('sha256', Buffer.from(signingInput), key.privateKey)
    return { token: `${signingInput}.${signature.toString('base64url')}`, payload }
  }

  return {
    issuer,
    async sign(claims, options) {
      return (await signJwt(claims, options)).token
    },
    signJwt,
    /**
     * A token that verified once verifies the same way until it expires: its bytes, and so its
     * signature and claims, cannot change, and a key stays trusted for days after it is retired
     * (longer than any token lives). So a repeat of the same token with the same options is
     * answered from memory until its `exp`, without another RSA verification. Revocation is not
     * decided here: callers check their denylist on every use.
     */
    async verify(token, options = {}) {
      const checkedUnder = optionsKey(options)
      const known = verified.get(token)
      if (known && known.options === checkedUnder && Date.now() < known.until) return known.result
      if (known) verified.delete(token)
      const result = await jwtVerify(token, keyFor, {
        issuer,
        algorithms: [ALG],
        audience: options.audience,
        typ: options.typ,
        clockTolerance: options.clockToleranceSeconds ?? 5,
        requiredClaims: ['exp', 'iat', 'jti'],
      })
      Object.freeze(result.payload)
      Object.freeze(result.protectedHeader)
      if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!)
      verified.set(token, { options: checkedUnder, result, until: (result.payload.exp as number) * 1000 })
      return result
    },
    remembered(token, options = {}) {
      const known = verified.get(token)
      return known && known.options === optionsKey(options) && Date.now() < known.until ? known.result : undefined
    },
    jwks() {
      return { keys: [...verifying.values()].map((k) => k.publicJwk) }
    },
    async rotate() {
      await db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${KEY_LOCK})`.execute(trx)
        await trx
          .updateTable('signing_keys')
          .set({ status: 'retired', retired_at: new Date() })
          .where('status', '=', 'active')
          .where('alg', '=', ALG)
          .execute()
        await insertNewKey(trx, keyring)
      })
      await load()
    },
  }
}

/** Generates the first key exactly once, even when several instances start together. */
async function ensureActiveKey(db: Db, keyring: Keyring): Promise<void> {
  const existing = await db
    .selectFrom('signing_keys')
    .select('kid')
    .where('status', '=', 'active')
    .where('alg', '=', ALG)
    .executeTakeFirst()
  if (existing) return
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${KEY_LOCK})`.execute(trx)
    const again = await trx
      .selectFrom('signing_keys')
      .select('kid')
      .where('status', '=', 'active')
      .where('alg', '=', ALG)
      .executeTakeFirst()
    if (!again) await insertNewKey(trx, keyring)
  })
}

async function insertNewKey(db: Db, keyring: Keyring): Promise<void> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true })
  const publicJwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256')
  const privateJwk = await exportJWK(privateKey)
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: ALG,
      public_jwk: JSON.stringify({ kty: publicJwk.kty, n: publicJwk.n, e: publicJwk.e }),
      private_jwk_sealed: keyring.seal(JSON.stringify(privateJwk), `signing_keys:${kid}`),
      status: 'active',
    })
    .execute()
}
