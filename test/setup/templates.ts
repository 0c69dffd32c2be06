import { existsSync, renameSync, writeFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely'
import pg from 'pg'
import { createKeyring } from '../../src/infra/crypto.ts'
import { migrateToLatest } from '../../src/infra/migrate.ts'
import { createSigner } from '../../src/infra/signer.ts'
import { TEST_DATA_KEY } from '../helpers/data-key.ts'
import { adminUrl, testDatabasePrefix } from '../helpers/database.ts'
import { reachable } from '../helpers/reachable.ts'
import { embeddedTemplatePath, postgresTemplateName } from '../helpers/templates.ts'

const TEMPLATE_LOCK = 727_099

/**
 * Migrates a template database and gives it the signing key a first start makes, sealed with the
 * tests' data key: generating an RSA key took 16-300 ms of CPU on each of the suite's few hundred
 * fresh databases.
 */
async function prepare(db: Kysely<never>): Promise<void> {
  await migrateToLatest(db as never)
  await createSigner(db as never, createKeyring(Buffer.from(TEST_DATA_KEY, 'base64')), 'https://template.test')
}

/** Migrates one embedded database and keeps a dump of its data directory for the test files. */
async function embeddedTemplate(): Promise<void> {
  if (existsSync(embeddedTemplatePath)) return
  const pglite = await PGlite.create()
  const db = new Kysely<never>({ dialect: new PGliteDialect({ pglite }) })
  await prepare(db)
  // The embedded service never makes a database, so the copies need no templates to make one from:
  // without template0 and template1 (a third of the dump), opening a copy took 0.3-0.6 s instead
  // of 0.6-0.95 s.
  for (const name of ['template0', 'template1']) {
    await pglite.exec(`alter database ${name} is_template false`)
    await pglite.exec(`drop database ${name}`)
  }
  // A copy made after a checkpoint starts without replaying the migrations' WAL: about 0.1 s of
  // each of the suite's few hundred openings.
  await pglite.query('checkpoint')
  const dump = await pglite.dumpDataDir('none')
  await db.destroy()
  const partial = `${embeddedTemplatePath}.${process.pid}`
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
  renameSync(partial, embeddedTemplatePath)
}

/** Creates and migrates the template database on the test server, once, under a lock. */
async function postgresTemplate(): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl() })
  await admin.connect()
  try {
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK])
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [postgresTemplateName])
    if (rowCount) return
    await admin.query(`create database ${postgresTemplateName}_building`)
    const url = new URL(adminUrl())
    url.pathname = `/${postgresTemplateName}_building`
    const db = new Kysely<never>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }) })
    try {
      await prepare(db)
    } finally {
      await db.destroy()
    }
    // Renamed only when complete, so a template that exists is a migrated one.
    await admin.query(`alter database ${postgresTemplateName}_building rename to ${postgresTemplateName}`)
  } catch (error) {
    await admin.query(`drop database if exists ${postgresTemplateName}_building`).catch(() => {})
    throw error
  } finally {
    await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => {})
    await admin.end()
  }
}

/** Drops what is left of the run's databases: the copy each worker made for a file that never came. */
async function dropRunDatabases(): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl() })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [
      testDatabasePrefix(),
    ])
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`)
  } finally {
    await admin.end()
  }
}

export default async function setup(): Promise<(() => Promise<void>) | void> {
  await embeddedTemplate()
  if (!(await reachable(adminUrl(), 5432))) return
  await postgresTemplate()
  return dropRunDatabases
}
