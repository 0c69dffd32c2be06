import fp from 'fastify-plugin'
import nodemailer from 'nodemailer'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { newId, type Keyring } from './crypto.ts'
import type { Db } from './db.ts'

export interface Mail {
  to: string
  subject: string
  text: string
  /** Extra header fields (List-Unsubscribe of a notification); the outbox does not keep them. */
  headers?: Record<string, string>
}

export interface Mailer {
  readonly transport: 'smtp' | 'outbox'
  send(mail: Mail): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer
  }
}

export interface MailerOptions {
  config: Config
  db: Db
  keyring: Keyring
  log: Logger
}

/**
 * Sign-in and claim codes go out by SMTP when SMTP_URL is set. Without it they land in the
 * `outbox` table, sealed (recipient and body are personal data and secrets), and one log line
 * says a mail was stored, never to whom. In development only, that line also carries the mail's
 * text, so a sign-in code can be read without SMTP (`npm run outbox` shows the stored mails too);
 * production without SMTP warns at start, since nobody would receive a code.
 */
export function createMailer({ config, db, keyring, log }: MailerOptions): Mailer {
  if (config.SMTP_URL) {
    const transporter = nodemailer.createTransport(config.SMTP_URL)
    return {
      transport: 'smtp',
      async send(mail) {
        const info = await transporter.sendMail({
          from: config.MAIL_FROM,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          ...(mail.headers ? { headers: mail.headers } : {}),
        })
        log.info({ messageId: info.messageId, subject: mail.subject }, 'mail sent')
      },
    }
  }
  const development = config.NODE_ENV === 'development'
  if (config.NODE_ENV === 'production')
    log.warn('SMTP_URL is not set: sign-in and claim codes are only stored in the outbox table, and nobody receives them')
  return {
    transport: 'outbox',
    async send(mail) {
      const id = newId('mail')
      await db
        .insertInto('outbox')
        .values({
          id,
          to_sealed: keyring.seal(mail.to, `outbox.to:${id}`),
          subject: mail.subject,
          body_sealed: keyring.seal(mail.text, `outbox.body:${id}`),
        })
        .execute()
      log.info(
        { mailId: id, subject: mail.subject, ...(development ? { text: mail.text } : {}) },
        'mail stored in the outbox (SMTP_URL is not set)',
      )
    },
  }
}

export interface OutboxMail extends Mail {
  id: string
  createdAt: Date
}

/** The outbox, newest first, opened: for development and tests, optionally only one recipient's mail. */
export async function readOutbox(db: Db, keyring: Keyring, to?: string): Promise<OutboxMail[]> {
  const rows = await db.selectFrom('outbox').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(500).execute()
  const mails = rows.map((row) => ({
    id: row.id,
    to: keyring.open(row.to_sealed, `outbox.to:${row.id}`),
    subject: row.subject,
    text: keyring.open(row.body_sealed, `outbox.body:${row.id}`),
    createdAt: row.created_at,
  }))
  return to ? mails.filter((mail) => mail.to.toLowerCase() === to.toLowerCase()) : mails
}

/** Decorates the app with `mailer`; needs the core plugin (db, keyring, config). */
export default fp(
  async (app: FastifyInstance) => {
    app.decorate('mailer', createMailer({ config: app.config, db: app.db, keyring: app.keyring, log: app.log as unknown as Logger }))
  },
  { name: 'mailer', dependencies: ['core'] },
)
