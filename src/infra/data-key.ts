import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { createKeyring, decodeKey, type Keyring } from './crypto.ts'

/**
 * The keyring for personal data and private signing keys. Production must set DATA_ENCRYPTION_KEY
 * (config refuses to start otherwise); development falls back to a key kept in DATA_DIR, or to a
 * throwaway one for a throwaway memory:// database.
 */
export function openKeyring(config: Config, log: Logger): Keyring {
  const previous = (config.DATA_ENCRYPTION_KEYS_PREVIOUS ?? '').split(',').filter(Boolean).map(decodeKey)
  if (config.DATA_ENCRYPTION_KEY) return createKeyring(decodeKey(config.DATA_ENCRYPTION_KEY), previous)

  if (config.DATABASE_URL === 'memory://') {
    log.warn('DATA_ENCRYPTION_KEY is not set: using a throwaway key for the memory:// database')
    return createKeyring(randomBytes(32), previous)
  }
  const file = path.join(config.DATA_DIR, 'data-encryption.key')
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true })
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' })
  }
  log.warn({ file }, 'DATA_ENCRYPTION_KEY is not set: using the development key in DATA_DIR (never do this in production)')
  return createKeyring(decodeKey(readFileSync(file, 'utf8').trim()), previous)
}
