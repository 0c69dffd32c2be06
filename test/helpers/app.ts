import { Writable } from 'node:stream'
import { cleanUpAfter } from './cleanup.ts'
import { buildApp, type App, type BuildOptions } from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { embeddedTemplate, freshDatabaseUrl } from './database.ts'
import { TEST_DATA_KEY } from './data-key.ts'

export { TEST_DATA_KEY }

export interface TestApp {
  app: App
  config: Config
  databaseUrl: string
  /** Log lines written so far, parsed (only when `captureLogs` was asked for). */
  logs: Array<Record<string, unknown>>
}

export interface TestAppOptions extends Omit<BuildOptions, 'logStream'> {
  env?: Record<string, string>
  /** Reuse a database (e.g. a second instance on the same data). */
  databaseUrl?: string
  captureLogs?: boolean
}

/** Builds the whole service on a fresh database; closed after the test file. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? (await freshDatabaseUrl())
  const config = testConfig({ DATABASE_URL: databaseUrl, ...(options.captureLogs ? { LOG_LEVEL: 'info' } : {}), ...options.env })
  const logs: Array<Record<string, unknown>> = []
  const logStream = options.captureLogs
    ? new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>)
          done()
        },
      })
    : undefined
  const app = await buildApp(config, {
    ...options,
    logStream,
    embeddedTemplate: databaseUrl === 'memory://' ? embeddedTemplate() : undefined,
  })
  cleanUpAfter(() => app.close())
  return { app, config, databaseUrl, logs }
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_ENCRYPTION_KEY: TEST_DATA_KEY, DATA_DIR: '/tmp/wps-test-data', ...env })
}
