// Prints the newest mails of the outbox (where mail goes while SMTP_URL is unset), opened with the
// data key: `npm run outbox` for the last 5, `npm run outbox -- 20`, `npm run outbox -- ada@example.com`.
// Reads the same DATABASE_URL, DATA_DIR and data key as the server. For development: it shows
// sign-in codes in clear.
import { pino } from 'pino'
import { ConfigError, loadConfig } from '../src/config.ts'
import { openKeyring } from '../src/infra/data-key.ts'
import { openDataStore } from '../src/infra/db.ts'
import { readOutbox } from '../src/infra/mailer.ts'

const log = pino({ level: 'warn' }, pino.destination(2))
const args = process.argv.slice(2)
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 5)
const to = args.find((a) => a.includes('@'))

try {
  const config = loadConfig()
  const store = await openDataStore({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, poolSize: 1 })
  try {
    const mails = (await readOutbox(store.db, openKeyring(config, log), to)).slice(0, count)
    if (mails.length === 0) process.stdout.write('The outbox is empty.\n')
    for (const mail of mails) {
      process.stdout.write(`--- ${mail.createdAt.toISOString()}  ${mail.id}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n\n`)
    }
  } finally {
    await store.close()
  }
} catch (error) {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `outbox: ${error instanceof Error ? error.message : String(error)}`}\n`,
  )
  process.exitCode = error instanceof ConfigError ? 78 : 1
}
