import { pino } from 'pino'
import { ConfigError, loadConfig } from './config.ts'
import { buildApp } from './app.ts'
import { UnknownDataKeyError } from './infra/crypto.ts'

const SHUTDOWN_GRACE_MS = 25_000

async function main() {
  let config
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(78)
    }
    throw error
  }

  let app
  try {
    app = await buildApp(config)
  } catch (error) {
    const unknownKey = findCause(error, UnknownDataKeyError)
    if (unknownKey) {
      // A restart cannot fix this: exit as a configuration error instead of entering a restart loop.
      process.stderr.write(
        `Invalid configuration:\n  - DATA_ENCRYPTION_KEY: data in the database was sealed with another key (id ${unknownKey.keyId}). ` +
          'Set DATA_ENCRYPTION_KEY back to that key, or keep it in DATA_ENCRYPTION_KEYS_PREVIOUS (comma-separated) beside the new one.\n',
      )
      process.exit(78)
    }
    throw error
  }
  // Production log lines wait in a 4 KiB batch; whatever is pending is written before the process ends.
  const logStream = (app.log as unknown as Record<symbol, { flushSync?: () => void }>)[pino.symbols.streamSym]
  process.once('exit', () => logStream?.flushSync?.())
  await app.listen({ port: config.PORT, host: config.HOST })

  // Stop accepting, let requests and jobs in flight finish, close the pool; force exit if stuck.
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS)
    force.unref()
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

/** The error itself or one of its causes, when of the given class (plugin loaders wrap errors). */
function findCause<T extends Error>(error: unknown, kind: new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    if (current instanceof kind) return current
  }
  return undefined
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
