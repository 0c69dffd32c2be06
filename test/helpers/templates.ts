import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { migrationFolder } from '../../src/infra/migrate.ts'

/**
 * The suite migrates one database per driver once (test/setup/templates.ts) and every test file
 * starts from a copy: a PostgreSQL database created from a template, or an embedded one loaded
 * from a dump of its data directory. Both are named by a digest of the migrations and of what
 * else a template holds (its signing key, test/setup/templates.ts), so a change builds new ones.
 */
export const migrationsDigest = (() => {
  const hash = createHash('sha256').update('with a signing key, without template databases')
  for (const file of readdirSync(migrationFolder).sort()) hash.update(file).update(readFileSync(path.join(migrationFolder, file)))
  return hash.digest('hex').slice(0, 12)
})()

export const postgresTemplateName = `wps_template_${migrationsDigest}`
export const embeddedTemplatePath = `/tmp/wps-embedded-template-${migrationsDigest}.tar`
