import type { Selectable } from 'kysely'
import { Type } from 'typebox'
import type { Keyring } from '../../infra/crypto.ts'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import type { AccountExportsTable } from '../../infra/tables.ts'

/** An export is kept this long after it is made (DESIGN.md 19), then its zip is dropped. */
export const EXPORT_KEPT_DAYS = 7
export const EXPORT_JOB = 'account.export'
export const EXPORT_EXPIRE_JOB = 'account.export.expire'

export type AccountExport = Selectable<AccountExportsTable>

export const ExportId = Type.String({ pattern: '^exp_[A-Za-z0-9_-]{8,64}$', description: 'exp_…' })
export const ExportStatus = Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('failed'), Type.Literal('expired')])
export const Export = Type.Object(
  {
    id: ExportId,
    status: ExportStatus,
    created_at: Type.String({ format: 'date-time' }),
    size_bytes: Type.Optional(Type.Integer({ description: 'The zip’s size, once ready' })),
    download_url: Type.Optional(
      Type.String({
        format: 'uri',
        description:
          'A signed link for this account’s export only, until expires_at; it opens in the dashboard for an owner of the account',
      }),
    ),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, description: 'An export of the account' },
)
export const ExportStarted = Type.Object({ id: ExportId, status: ExportStatus }, { additionalProperties: false })

export interface ExportView {
  id: string
  status: AccountExport['status']
  created_at: string
  size_bytes?: number
  download_url?: string
  expires_at?: string
}

const LINK_CONTEXT = 'account-export-link'

/** The signed link of a ready export: sealed (authenticated) with the data key, naming the export, its account and when it stops working. */
export function downloadLink(keyring: Keyring, baseUrl: string, row: Pick<AccountExport, 'id' | 'account_id' | 'expires_at'>): string {
  const token = keyring.seal(
    JSON.stringify({ e: row.id, a: row.account_id, x: row.expires_at ? new Date(row.expires_at).getTime() : 0 }),
    LINK_CONTEXT,
  )
  return `${baseUrl}/app/exports/${row.id}/download?t=${encodeURIComponent(token)}`
}

/** What a signed link names, if it is one of ours and still good; undefined otherwise. */
export function openDownloadLink(keyring: Keyring, exportId: string, token: string, now = Date.now()): { accountId: string } | undefined {
  try {
    const named = JSON.parse(keyring.open(token, LINK_CONTEXT)) as { e: string; a: string; x: number }
    if (named.e !== exportId || named.x <= now) return undefined
    return { accountId: named.a }
  } catch {
    return undefined
  }
}

export function exportView(row: AccountExport, link: (row: AccountExport) => string): ExportView {
  const ready = row.status === 'ready'
  return {
    id: row.id,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    ...(ready && row.size_bytes !== null ? { size_bytes: row.size_bytes } : {}),
    ...(ready ? { download_url: link(row) } : {}),
    ...(ready && row.expires_at ? { expires_at: new Date(row.expires_at).toISOString() } : {}),
  }
}

/** Asks for an export: the row, pending, and its job, in the caller's transaction. */
export async function requestExport(db: Db, accountId: string, userId: string | null): Promise<AccountExport> {
  const row = await db
    .insertInto('account_exports')
    .values({ id: newId('exp'), account_id: accountId, requested_by: userId })
    .returningAll()
    .executeTakeFirstOrThrow()
  await enqueueJob(db, EXPORT_JOB, { export_id: row.id }, { maxAttempts: 3 })
  return row
}

export async function getAccountExport(db: Db, accountId: string, exportId: string): Promise<AccountExport | undefined> {
  return db
    .selectFrom('account_exports')
    .select(['id', 'account_id', 'requested_by', 'status', 'size_bytes', 'error', 'created_at', 'finished_at', 'expires_at'])
    .select((eb) => eb.val(null).as('archive'))
    .where('account_id', '=', accountId)
    .where('id', '=', exportId)
    .executeTakeFirst() as Promise<AccountExport | undefined>
}

export async function listAccountExports(db: Db, accountId: string, limit = 20): Promise<AccountExport[]> {
  return db
    .selectFrom('account_exports')
    .select(['id', 'account_id', 'requested_by', 'status', 'size_bytes', 'error', 'created_at', 'finished_at', 'expires_at'])
    .select((eb) => eb.val(null).as('archive'))
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute() as Promise<AccountExport[]>
}

/** The zip of a ready, unexpired export of the account. */
export async function exportArchive(db: Db, accountId: string, exportId: string): Promise<Uint8Array | undefined> {
  const row = await db
    .selectFrom('account_exports')
    .select(['archive', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', exportId)
    .where('status', '=', 'ready')
    .executeTakeFirst()
  if (!row?.archive || !row.expires_at || new Date(row.expires_at).getTime() <= Date.now()) return undefined
  return row.archive
}
