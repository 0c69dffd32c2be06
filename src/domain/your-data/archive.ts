import yazl from 'yazl'
import { translator } from '../i18n/translator.ts'
import { isLocale } from '../locales.ts'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob, type NamedJob } from '../../infra/jobs.ts'
import type { Mailer } from '../../infra/mailer.ts'
import { accountEmail, listMembers } from '../accounts/members.ts'
import { listAuditRecords } from '../accounts/audit-log.ts'
import { conversationMessages, listAccountConversations } from '../leads/conversations.ts'
import { listAccountLeads } from '../leads/leads.ts'
import { blockView, listPageBlocks } from '../sites/blocks.ts'
import { domainView, listSiteDomains } from '../sites/domains.ts'
import { listSitePages } from '../sites/pages.ts'
import { listSiteRedirects, redirectView } from '../sites/redirects.ts'
import { listAccountSites } from '../sites/sites.ts'
import { leadView, pageView, siteView } from '../sites/views.ts'
import type { MediaStorage } from '../../infra/media-storage.ts'
import { listMedia, mediaByIds, mediaUsage } from '../media/media.ts'
import { largestVariant, mediaView } from '../media/views.ts'
import { downloadLink, EXPORT_EXPIRE_JOB, EXPORT_JOB, EXPORT_KEPT_DAYS } from './exports.ts'

/**
 * The zip of an account (DESIGN.md 19): each site's content in the shapes /v1 answers, its last
 * published files laid out as a static site any web host serves (with the photos and shipped
 * files its pages name), the media library's photos, leads and conversations as JSON and CSV, the
 * members and the audit log.
 */

export interface ExportDeps {
  db: Db
  keyring: Keyring
  mailer: Mailer
  log: Logger
  config: Pick<Config, 'BASE_URL' | 'SITES_DOMAIN'>
  /** Where the media library's bytes are kept (the database or object storage). */
  storage: MediaStorage
  /** A file every site serves beside its release (`/_wps/assets/…`: theme fonts, illustrations), by its path. */
  sharedFile?: (path: string) => { body: Uint8Array } | undefined
}

const ALL = { limit: 100_000, offset: 0 }

/** One CSV cell: quoted, and a cell a spreadsheet would run as a formula (=, +, -, @) kept as text. */
function cell(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return `"${text.replaceAll('"', '""')}"`
}

export function csv(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return `${[header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/**
 * Where a release file goes in the static copy: a page's address becomes a folder with its
 * index.html ("/about" → about/index.html, "/" → index.html), so a plain static server finds
 * every link as published; files with a name of their own keep it.
 */
export function staticFileName(path: string, contentType: string): string {
  const inner = path.replace(/^\/+/, '')
  if (inner === '' || inner.endsWith('/')) return `${inner}index.html`
  if (contentType.startsWith('text/html') && !/\.[a-z0-9]+$/i.test(inner)) return `${inner}/index.html`
  return inner
}

/** A folder name for a site that is safe in every zip tool: its subdomain label (unique). */
const folderOf = (site: { slug: string; id: string }) => (/^[a-z0-9-]{1,63}$/.test(site.slug) ? site.slug : site.id)

/**
 * The media library's photos: each item's largest variant in its own family (the uploaded file
 * itself is not kept, DESIGN.md 14: this is the most of it there is), named after the upload,
 * with the library as /v1 lists it.
 */
async function mediaEntries(deps: ExportDeps, accountId: string): Promise<Array<{ name: string; body: Uint8Array }>> {
  const { items } = await listMedia(deps.db, accountId, ALL)
  const uses = await mediaUsage(
    deps.db,
    accountId,
    items.map((m) => m.id),
  )
  const library = items.map((m) => mediaView(m, uses.get(m.id) ?? [], deps.config.BASE_URL))
  const entries: Array<{ name: string; body: Uint8Array }> = [{ name: 'media/media.json', body: Buffer.from(json(library)) }]
  for (const media of items) {
    const variant = largestVariant(media)
    const body = await deps.storage.read(deps.db, variant.key)
    if (!body) continue
    const stem = media.filename.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'image'
    entries.push({ name: `media/${media.id}/${stem}.${variant.key.split('.').pop()}`, body })
  }
  return entries
}

/**
 * What a release's pages name that is served beside the release rather than in it: the media
 * library's variants (`_media/…`) and the files shipped with the service (`_wps/assets/…`). Found
 * in the pages' text, whether the page names them from the root or relatively, and placed at the
 * static copy's root, so every image and font is there when a plain server serves the folder.
 */
const BESIDE = /(?<![\w-])_(media\/med_[A-Za-z0-9_-]{8,64}\/\d{1,5}\.(?:webp|jpg|png)|wps\/assets\/[A-Za-z0-9._/-]{1,200})/g

async function filesBeside(
  deps: ExportDeps,
  accountId: string,
  files: ReadonlyArray<{ content_type: string; body: Uint8Array }>,
): Promise<Array<{ name: string; body: Uint8Array }>> {
  const named = new Set<string>()
  for (const file of files) {
    if (!/^(text\/|application\/(xml|json|javascript))/.test(file.content_type)) continue
    for (const [, path] of Buffer.from(file.body).toString('utf8').matchAll(BESIDE)) named.add(path!)
  }
  const media = await mediaByIds(
    deps.db,
    accountId,
    [...named].filter((p) => p.startsWith('media/')).map((p) => p.split('/')[1]!),
  )
  const entries: Array<{ name: string; body: Uint8Array }> = []
  for (const path of named) {
    if (path.startsWith('media/')) {
      // Only the account's own items, and only their listed variants.
      const item = media.get(path.split('/')[1]!)
      if (!item?.variants.some((v) => v.key === path)) continue
      const body = await deps.storage.read(deps.db, path)
      if (body) entries.push({ name: `_${path}`, body })
    } else {
      const shared = deps.sharedFile?.(`/_${path}`)
      if (shared) entries.push({ name: `_${path}`, body: shared.body })
    }
  }
  return entries
}

export async function buildExportArchive(deps: ExportDeps, accountId: string): Promise<Buffer> {
  const { db, keyring, config } = deps
  const zip = new yazl.ZipFile()
  const add = (name: string, body: string | Uint8Array) =>
    zip.addBuffer(typeof body === 'string' ? Buffer.from(body) : Buffer.from(body), name)
  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })

  const account = await db.selectFrom('accounts').select(['id', 'plan', 'created_at']).where('id', '=', accountId).executeTakeFirstOrThrow()
  add(
    'README.txt',
    [
      'Everything your account holds, as of this export.',
      '',
      'account.json, members.json: the account and its members.',
      'audit-log.json, audit-log.csv: the account’s audit log (kept 90 days).',
      'leads.json, leads.csv: the leads of every site.',
      'conversations.json, conversations.csv: the assistant’s conversations, with their messages.',
      'sites/<name>/site.json, pages.json, domains.json, redirects.json: each site as the API shows it.',
      'sites/<name>/static/: the site as last published, with the photos and fonts its pages show. Upload',
      '  the folder to any web host, or open it with a static file server: every page is a folder with its index.html.',
      'media/: the photos of the media library, each in its largest size; media.json lists them as the API does.',
      '',
    ].join('\r\n'),
  )
  add('account.json', json({ id: account.id, plan: account.plan, created_at: new Date(account.created_at).toISOString() }))
  add('members.json', json(await listMembers(db, keyring, accountId)))

  const { rows: audit } = await listAuditRecords(db, accountId, {}, { limit: 1_000_000, offset: 0 })
  const auditItems = audit.map((r) => ({
    id: r.id,
    at: new Date(r.at).toISOString(),
    account_id: r.account_id,
    token_id: r.token_id,
    client_id: r.client_id,
    user_id: r.user_id ?? null,
    operation: r.operation,
    method: r.method,
    path: r.path,
    status: r.status,
    request_id: r.request_id,
    ip: r.ip,
  }))
  add('audit-log.json', json(auditItems))
  const auditColumns = [
    'id',
    'at',
    'user_id',
    'token_id',
    'client_id',
    'operation',
    'method',
    'path',
    'status',
    'request_id',
    'ip',
  ] as const
  add(
    'audit-log.csv',
    csv(
      auditColumns,
      auditItems.map((r) => auditColumns.map((c) => r[c])),
    ),
  )

  const leads = (await listAccountLeads(db, keyring, accountId, {}, ALL)).items.map(leadView)
  add('leads.json', json(leads))
  add(
    'leads.csv',
    csv(
      [
        'id',
        'site_id',
        'source',
        'email',
        'name',
        'note',
        'consent_version',
        'consent_locale',
        'consent_digest',
        'consent_given_at',
        'created_at',
      ],
      leads.map((l) => [
        l.id,
        l.site_id,
        l.source,
        l.email,
        l.name,
        l.note,
        l.consent.version,
        l.consent.locale,
        l.consent.digest,
        l.consent.given_at,
        l.created_at,
      ]),
    ),
  )

  const conversations = []
  const messageRows: unknown[][] = []
  for (const c of (await listAccountConversations(db, accountId, {}, ALL)).items) {
    const messages = await conversationMessages(db, keyring, c.session_id, 100_000)
    conversations.push({ ...c, messages })
    for (const m of messages) messageRows.push([c.session_id, c.site_id, c.locale, m.at, m.role, m.text])
  }
  add('conversations.json', json(conversations))
  add('conversations.csv', csv(['session_id', 'site_id', 'locale', 'at', 'role', 'text'], messageRows))

  for (const site of (await listAccountSites(db, accountId, ALL)).items) {
    const folder = `sites/${folderOf(site)}`
    add(`${folder}/site.json`, json(siteView(site, config)))
    const pages = []
    for (const page of (await listSitePages(db, site.id, ALL)).items) {
      const { items: blocks } = await listPageBlocks(db, page.id, ALL)
      pages.push({ ...pageView(page), blocks: blocks.map(blockView) })
    }
    add(`${folder}/pages.json`, json(pages))
    add(`${folder}/domains.json`, json((await listSiteDomains(db, site.id, ALL)).items.map(domainView)))
    add(`${folder}/redirects.json`, json((await listSiteRedirects(db, site.id, ALL)).items.map(redirectView)))

    // The release that is live, else the last one that was built (an offline site keeps its files).
    const release =
      site.live_build_id ??
      (
        await db
          .selectFrom('builds')
          .select('id')
          .where('site_id', '=', site.id)
          .where('status', '=', 'succeeded')
          .orderBy('finished_at', 'desc')
          .executeTakeFirst()
      )?.id
    if (release) {
      const files = await db.selectFrom('build_files').select(['path', 'content_type', 'body']).where('build_id', '=', release).execute()
      for (const file of files) add(`${folder}/static/${staticFileName(file.path, file.content_type)}`, file.body)
      for (const file of await filesBeside(deps, accountId, files)) add(`${folder}/static/${file.name}`, file.body)
    }
  }
  for (const media of await mediaEntries(deps, accountId)) add(media.name, media.body)

  zip.end()
  return done
}

/** Makes the zip of a requested export, keeps it 7 days and mails its link to who asked (or the first owner). */
export function exportJob(deps: ExportDeps): NamedJob<{ export_id: string }> {
  return {
    name: EXPORT_JOB,
    definition: {
      maxAttempts: 3,
      leaseMs: 120_000,
      handler: async ({ export_id }, { log }) => {
        const row = await deps.db
          .selectFrom('account_exports')
          .select(['id', 'account_id', 'requested_by', 'status'])
          .where('id', '=', export_id)
          .executeTakeFirst()
        if (!row || row.status !== 'pending') return
        let archive: Buffer
        try {
          archive = await buildExportArchive(deps, row.account_id)
        } catch (error) {
          log.error({ err: error, export_id }, 'the export could not be made')
          await deps.db
            .updateTable('account_exports')
            .set({ status: 'failed', error: 'The export could not be made', finished_at: new Date() })
            .where('id', '=', export_id)
            .execute()
          return
        }
        const expiresAt = new Date(Date.now() + EXPORT_KEPT_DAYS * 86_400_000)
        await deps.db.transaction().execute(async (trx) => {
          await trx
            .updateTable('account_exports')
            .set({ status: 'ready', archive, size_bytes: archive.length, finished_at: new Date(), expires_at: expiresAt })
            .where('id', '=', export_id)
            .execute()
          await enqueueJob(trx, EXPORT_EXPIRE_JOB, { export_id }, { runAt: expiresAt, maxAttempts: 5 })
        })
        const recipient = await recipientOf(deps, row.account_id, row.requested_by)
        if (recipient) {
          const t = translator(isLocale(recipient.language) ? recipient.language : 'en')
          const link = downloadLink(deps.keyring, deps.config.BASE_URL, {
            id: export_id,
            account_id: row.account_id,
            expires_at: expiresAt,
          })
          await deps.mailer.send({
            to: recipient.email,
            subject: t.t('mail.export.subject'),
            text: t.t('mail.export.text', { until: t.dateTime(expiresAt), link }),
          })
        }
      },
    },
  }
}

/** Who asked for the export, in the language they chose; else the account's first owner (in English). */
async function recipientOf(
  deps: ExportDeps,
  accountId: string,
  userId: string | null,
): Promise<{ email: string; language: string | null } | null> {
  if (userId) {
    const user = await deps.db.selectFrom('users').select(['id', 'email_sealed', 'language']).where('id', '=', userId).executeTakeFirst()
    if (user) return { email: deps.keyring.open(user.email_sealed, `users.email:${user.id}`), language: user.language }
  }
  const email = await accountEmail(deps.db, deps.keyring, accountId)
  return email ? { email, language: null } : null
}

/** Drops an export's zip once its 7 days are over. */
export function exportExpireJob(db: Db): NamedJob<{ export_id: string }> {
  return {
    name: EXPORT_EXPIRE_JOB,
    definition: {
      handler: async ({ export_id }) => {
        await db
          .updateTable('account_exports')
          .set({ status: 'expired', archive: null })
          .where('id', '=', export_id)
          .where('status', '=', 'ready')
          .execute()
      },
    },
  }
}
