import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  randomBytes,
  randomFillSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto'

/** SHA-256 of a secret, hex. Secrets (tokens, codes) are stored only in this form. */
export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex')
}

/** Constant-time equality of two strings; differing lengths compare false without an early exit on content. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}

/** base64url of `bytes` random bytes: 32 bytes give the 43 characters of a session token. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

const idEntropy = Buffer.alloc(4096)
let idEntropyUsed = idEntropy.length

/**
 * Random bytes for ids, taken from a pool the CSPRNG refills 4 KiB at a time (as randomUUID
 * does): one call into it per few hundred ids rather than one per id, which showed in the
 * profile of every audited request. Each byte is handed out once.
 */
function idBytes(count: number): string {
  if (idEntropyUsed + count > idEntropy.length) {
    randomFillSync(idEntropy)
    idEntropyUsed = 0
  }
  const bytes = idEntropy.toString('base64url', idEntropyUsed, idEntropyUsed + count)
  idEntropyUsed += count
  return bytes
}

/**
 * Fresh random bytes from the same pool, as a view valid until the next call: an AES-GCM nonce
 * (96 random bits per seal) without a call into the CSPRNG per sealed value. Each byte is handed
 * out once, so no two seals share a nonce.
 */
function poolBytes(count: number): Buffer {
  if (idEntropyUsed + count > idEntropy.length) {
    randomFillSync(idEntropy)
    idEntropyUsed = 0
  }
  const bytes = idEntropy.subarray(idEntropyUsed, idEntropyUsed + count)
  idEntropyUsed += count
  return bytes
}

/** A prefixed random id such as `site_3kF9…`; 16 random bytes keep ids unguessable. */
export function newId(prefix: string): string {
  return `${prefix}_${idBytes(16)}`
}

let lastMs = 0
let sequence = 0

/**
 * An id that sorts by creation time within this process: 12 hex digits of milliseconds, a 4-digit
 * counter for ids made in the same millisecond, then randomness. For records listed newest first
 * by (time, id), where two made in one millisecond must still come out in the order they were made.
 */
export function newTimeOrderedId(prefix: string, now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now
    sequence = 0
  } else sequence = (sequence + 1) & 0xffff
  const time = lastMs.toString(16).padStart(12, '0')
  return `${prefix}_${time}${sequence.toString(16).padStart(4, '0')}${idBytes(10)}`
}

/**
 * Sealed data names a key this process was not given: DATA_ENCRYPTION_KEY changed and the key it
 * was sealed with is not in DATA_ENCRYPTION_KEYS_PREVIOUS. A configuration fault, not a bug.
 */
export class UnknownDataKeyError extends Error {
  readonly keyId: string
  constructor(keyId: string) {
    super(`no data key with id ${keyId}`)
    this.name = 'UnknownDataKeyError'
    this.keyId = keyId
  }
}

export interface Keyring {
  /** Id of the key new data is sealed with. */
  readonly currentKeyId: string
  /** AES-256-GCM; `context` is bound as additional data so a sealed value cannot be moved to another row or column. */
  seal(plaintext: string, context?: string): string
  open(sealed: string, context?: string): string
}

const FORMAT = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('data-key-id:').update(key).digest('hex').slice(0, 12)
}

export function decodeKey(encoded: string): Buffer {
  const key = Buffer.from(encoded.replaceAll('-', '+').replaceAll('_', '/'), 'base64')
  if (key.length !== 32) throw new Error('a data encryption key must be 32 bytes')
  return key
}

/**
 * Sealed values look like `v1.<key id>.<base64url(iv | ciphertext | tag)>`. The key id lets old data
 * be opened with a previous key after rotation while new data uses the current one.
 */
export function createKeyring(current: Buffer, previous: Buffer[] = []): Keyring {
  // Key objects are made once: handing a raw Buffer to every cipher re-imports the key each time.
  const keys = new Map<string, KeyObject>()
  for (const key of [current, ...previous]) keys.set(keyIdOf(key), createSecretKey(key))
  const currentKeyId = keyIdOf(current)
  const currentKey = keys.get(currentKeyId)!

  return {
    currentKeyId,
    seal(plaintext, context = '') {
      // Copied by the cipher and by the concat below before the pool is drawn from again.
      const iv = poolBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv)
      cipher.setAAD(Buffer.from(context))
      const body = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${FORMAT}.${currentKeyId}.${body.toString('base64url')}`
    },
    open(sealed, context = '') {
      const [format, keyId, payload] = sealed.split('.')
      if (format !== FORMAT || !keyId || !payload) throw new Error('not a sealed value')
      const key = keys.get(keyId)
      if (!key) throw new UnknownDataKeyError(keyId)
      const body = Buffer.from(payload, 'base64url')
      if (body.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value is truncated')
      const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(context))
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
      return Buffer.concat([decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8')
    },
  }
}
