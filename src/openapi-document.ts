import { buildApp } from './app.ts'
import { loadConfig } from './config.ts'

/**
 * The OpenAPI document as served at /openapi.json, built from a throwaway instance with fixed
 * settings so the checked-in copy does not depend on the machine that generated it.
 */
export async function generateOpenApi(): Promise<string> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: 'memory://',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
    BASE_URL: 'https://example.com',
    JOB_CONCURRENCY: '0',
  })
  const app = await buildApp(config)
  try {
    return `${JSON.stringify(app.swagger(), null, 2)}\n`
  } finally {
    await app.close()
  }
}
