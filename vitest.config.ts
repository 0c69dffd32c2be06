import { randomBytes } from 'node:crypto'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { reachable } from './test/helpers/reachable.ts'

// The suite runs on the embedded database always, and on a real PostgreSQL server when one answers.
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const withPostgres = await reachable(postgresUrl, 5432)
if (!withPostgres && process.env.CI) throw new Error(`CI expects PostgreSQL at ${postgresUrl}, but it does not answer`)
if (!withPostgres) console.warn(`PostgreSQL at ${postgresUrl} does not answer: running on the embedded database only`)

// Node keeps the code it compiled (TypeScript stripped included) on disk, for the workers and every process a test
// starts (test/helpers/process.ts): a process loading the service then starts in about half the time.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'wps-node-compile-cache')
// The run's databases on the test server carry its id, so its end drops any a test file left (test/helpers/database.ts).
process.env.WPS_TEST_RUN ??= randomBytes(4).toString('hex')

// Each driver's database is migrated once; test files start from copies (test/setup/templates.ts).
// Files share a worker's module graph (isolate: false): loading the service's modules once per worker instead of
// once per file more than halves the suite's time; every file builds its own app on its own database.
const LIGHTHOUSE = 'test/**/*.lighthouse.test.ts'
const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  globalSetup: ['test/setup/templates.ts'],
  setupFiles: ['test/setup/cleanup.ts'],
  isolate: false,
}

export default defineConfig({
  test: {
    // One worker more than the cores, not vitest's one fewer: most of a file's time is spent waiting on
    // PostgreSQL, child processes and Chromium (1,588 s of file time ran in 969 s on 2 cores with three workers,
    // against about 1,080 s with two).
    maxWorkers: availableParallelism() + 1,
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/**/*.unit.test.ts'] } },
      {
        test: {
          ...shared,
          name: 'embedded',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', LIGHTHOUSE],
          env: { TEST_DB: 'embedded' },
        },
      },
      ...(withPostgres
        ? [
            {
              test: {
                ...shared,
                name: 'postgres',
                include: ['test/**/*.test.ts'],
                exclude: ['test/**/*.unit.test.ts', LIGHTHOUSE],
                env: { TEST_DB: 'postgres', TEST_DATABASE_URL: postgresUrl },
              },
            },
          ]
        : []),
      // Lab scores measure the page, not a machine busy with the rest of the suite: the Lighthouse
      // gates run once everything else is done, one file at a time, on the embedded database.
      {
        test: {
          ...shared,
          name: 'lighthouse',
          include: [LIGHTHOUSE],
          env: { TEST_DB: 'embedded' },
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
