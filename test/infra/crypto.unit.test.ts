import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createKeyring, keyIdOf, newId, newTimeOrderedId, randomToken, safeEqual, sha256Hex } from '../../src/infra/crypto.ts'

describe('keyring (AES-256-GCM)', () => {
  const key = randomBytes(32)
  const keyring = createKeyring(key)

  it('opens what it sealed, and seals the same text differently each time', () => {
    const a = keyring.seal('ada@example.com', 'leads:email')
    const b = keyring.seal('ada@example.com', 'leads:email')
    expect(a).not.toBe(b)
    expect(a).not.toContain('ada')
    expect(a.startsWith(`v1.${keyIdOf(key)}.`)).toBe(true)
    expect(keyring.open(a, 'leads:email')).toBe('ada@example.com')
  })

  it('refuses a value moved to another context', () => {
    const sealed = keyring.seal('secret', 'leads:email')
    expect(() => keyring.open(sealed, 'leads:name')).toThrow()
  })

  it('refuses a tampered value', () => {
    const sealed = keyring.seal('secret')
    const [v, kid, body] = sealed.split('.') as [string, string, string]
    const bytes = Buffer.from(body, 'base64url')
    bytes[bytes.length - 20]! ^= 1
    expect(() => keyring.open(`${v}.${kid}.${bytes.toString('base64url')}`)).toThrow()
    expect(() => keyring.open('v1.abc')).toThrow(/not a sealed value/)
  })

  it('opens data sealed under a previous key after rotation, and seals with the new one', () => {
    const old = createKeyring(key)
    const sealedBefore = old.seal('kept', 'ctx')
    const newKey = randomBytes(32)
    const rotated = createKeyring(newKey, [key])
    expect(rotated.open(sealedBefore, 'ctx')).toBe('kept')
    expect(rotated.seal('new', 'ctx').split('.')[1]).toBe(keyIdOf(newKey))
    expect(() => createKeyring(newKey).open(sealedBefore, 'ctx')).toThrow(/no data key/)
  })
})

describe('secrets', () => {
  it('makes 43-character base64url tokens from 32 bytes', () => {
    const token = randomToken()
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(randomToken()).not.toBe(token)
  })

  it('makes prefixed ids, never the same one twice across many refills of the entropy pool', () => {
    expect(newId('site')).toMatch(/^site_[A-Za-z0-9_-]{22}$/)
    const ids = Array.from({ length: 5_000 }, () => newId('x'))
    expect(new Set(ids).size).toBe(ids.length)
    // 16 random bytes each: every base64url character shows up, none dominates.
    const counts = new Map<string, number>()
    for (const id of ids) for (const c of id.slice(2, 22)) counts.set(c, (counts.get(c) ?? 0) + 1)
    expect(counts.size).toBe(64)
    expect(Math.max(...counts.values()) / Math.min(...counts.values())).toBeLessThan(1.5)
  })

  it('hashes with SHA-256 and compares in constant time', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(safeEqual('abc', 'abc')).toBe(true)
    expect(safeEqual('abc', 'abd')).toBe(false)
    expect(safeEqual('abc', 'abcd')).toBe(false)
  })
})

describe('time-ordered ids', () => {
  it('sort in the order they were made, also within one millisecond and after it', () => {
    const at = Date.now() + 1_000
    const ids = [newTimeOrderedId('aud', at), newTimeOrderedId('aud', at), newTimeOrderedId('aud', at), newTimeOrderedId('aud', at + 1)]
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(4)
    for (const id of ids) expect(id).toMatch(/^aud_[0-9a-f]{16}[A-Za-z0-9_-]{14}$/)
  })
})
