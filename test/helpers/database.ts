import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { cleanUpAfter } from './cleanup.ts'
import { embeddedTemplatePath, postgresTemplateName } from './templates.ts'

export const onPostgres = process.env.TEST_DB === 'postgres'

/** The admin URL of the test server (only meaningful on the postgres project). */
export function adminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
}

/** The test run's own databases are named with its id (vitest.config.ts), so the run drops them all at its end. */
export function testDatabasePrefix(): string {
  return `wps_test_${process.env.WPS_TEST_RUN ?? 'run'}_`
}

async function createDatabase(empty: boolean): Promise<string> {
  const name = `${testDatabasePrefix()}${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl() })
  await admin.connect()
  const create = empty ? `create database ${name}` : `create database ${name} template ${postgresTemplateName}`
  try {
    // Copies of one template made at the same moment may find it busy (55006): try again shortly.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(create)
        return name
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt === 10) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
      }
    }
  } finally {
    await admin.end()
  }
}

/**
 * The migrated copy the worker's next request gets, created while the current file runs: making
 * one takes the server 0.3-0.6 s, most of it waiting on the disk. One left unused when the worker
 * ends is dropped with the run's other databases (test/setup/templates.ts).
 */
let spare: Promise<string> | undefined

/**
 * A fresh database for the calling test file: a new database on the test server (dropped after
 * the file), or a throwaway embedded one. It starts migrated, copied from the suite's template
 * (test/setup/templates.ts), unless `empty` is asked for (tests of migrating itself). The template
 * holds a signing key sealed with the tests' data key; `keyless` removes it from a PostgreSQL copy,
 * for a server started with a data key of its own (as a first start finds the database). A
 * memory:// copy is made by whoever opens it, and is theirs to change.
 */
export async function freshDatabaseUrl(options: { empty?: boolean; keyless?: boolean } = {}): Promise<string> {
  if (!onPostgres) return 'memory://'
  let name: string
  if (options.empty) name = await createDatabase(true)
  else {
    const next = spare ?? createDatabase(false)
    spare = createDatabase(false)
    // A failure is reported to the request that takes this copy.
    spare.catch(() => {})
    name = await next
  }
  cleanUpAfter(() => dropDatabase(name))
  const url = new URL(adminUrl())
  url.pathname = `/${name}`
  if (options.keyless && !options.empty) {
    const client = new pg.Client({ connectionString: url.toString() })
    await client.connect()
    await client.query(REMOVE_SIGNING_KEYS)
    await client.end()
  }
  return url.toString()
}

const REMOVE_SIGNING_KEYS = 'delete from signing_keys'

async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() })
  await client.connect()
  await client.query(`drop database if exists ${name} with (force)`)
  await client.end()
}

let template: Blob | undefined

/** The migrated embedded database every memory:// test database starts from (read once per worker). */
export function embeddedTemplate(): Blob | undefined {
  if (onPostgres || !existsSync(embeddedTemplatePath)) return undefined
  template ??= new Blob([readFileSync(embeddedTemplatePath)])
  return template
}

/**
 * A DATA_DIR for a server process on the embedded database, already migrated: its database is
 * loaded from the suite's template, so the process starts in seconds instead of migrating from
 * nothing. Removed after the test file. `keyless` as for `freshDatabaseUrl`.
 */
export async function migratedDataDir(prefix: string, options: { keyless?: boolean } = {}): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  cleanUpAfter(() => rmSync(dataDir, { recursive: true, force: true }))
  const template = embeddedTemplate()
  if (template) {
    const { PGlite } = await import('@electric-sql/pglite')
    const seeded = await PGlite.create(`${dataDir}/pgdata`, { loadDataDir: template })
    if (options.keyless) await seeded.query(REMOVE_SIGNING_KEYS)
    await seeded.close()
  }
  return dataDir
}
