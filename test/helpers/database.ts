import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll } from 'vitest'

export const onPostgres = process.env.TEST_DB === 'postgres'

/** The admin URL of the test server (only meaningful on the postgres project). */
export function adminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
}

/**
 * A fresh, empty database for the calling test file: a new database on the test server (dropped
 * after the file), or a throwaway embedded one.
 */
export async function freshDatabaseUrl(): Promise<string> {
  if (!onPostgres) return 'memory://'
  const name = `wps_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl() })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  afterAll(async () => {
    const client = new pg.Client({ connectionString: adminUrl() })
    await client.connect()
    await client.query(`drop database if exists ${name} with (force)`)
    await client.end()
  })
  const url = new URL(adminUrl())
  url.pathname = `/${name}`
  return url.toString()
}
