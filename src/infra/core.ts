import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import type { Keyring } from './crypto.ts'
import { openKeyring } from './data-key.ts'
import { openDataStore, type DataStore, type Db } from './db.ts'
import { JobRunner } from './jobs.ts'
import { migrateToLatest } from './migrate.ts'
import { openMediaStorage, type MediaStorage } from './media-storage.ts'
import { createSigner, type Signer } from './signer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    store: DataStore
    db: Db
    keyring: Keyring
    signer: Signer
    jobs: JobRunner
    /** Where the media library's bytes live (the database, or S3 when configured). */
    mediaStorage: MediaStorage
  }
}

/**
 * The shared services every room uses: database (migrated before anything listens), data keyring,
 * JWT signer and job runner. Closed in reverse order: jobs finish before the pool goes away.
 */
async function core(app: FastifyInstance, options: { config: Config; embeddedTemplate?: Blob | undefined }) {
  const { config } = options
  const log = app.log as unknown as import('pino').Logger
  const store = await openDataStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    log,
    poolSize: config.DATABASE_POOL_SIZE,
    embeddedTemplate: options.embeddedTemplate,
  })
  try {
    await migrateToLatest(store.db)
  } catch (error) {
    await store.close()
    throw error
  }
  const keyring = openKeyring(config, log)
  const signer = await createSigner(store.db, keyring, config.BASE_URL)
  const jobs = new JobRunner({ store, log, concurrency: config.JOB_CONCURRENCY })

  app.decorate('config', config)
  app.decorate('store', store)
  app.decorate('db', store.db)
  app.decorate('keyring', keyring)
  app.decorate('signer', signer)
  app.decorate('jobs', jobs)
  app.decorate('mediaStorage', await openMediaStorage(config))

  // Rooms define their job types while registering; workers start once everything is loaded.
  app.addHook('onReady', async () => {
    if (config.JOB_CONCURRENCY > 0) await jobs.start()
  })
  app.addHook('onClose', async () => {
    await jobs.stop()
    await store.close()
  })
}

export default fp(core, { name: 'core', fastify: '5.x' })
