import type { Db } from '../../../infra/db.ts'
import type { McsResult } from './result.ts'

export async function findFreshResult(db: Db, domain: string, now: Date): Promise<McsResult | undefined> {
  const row = await db
    .selectFrom('mcs_results')
    .select('result')
    .where('domain', '=', domain)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row?.result as McsResult | undefined
}

export async function saveResult(db: Db, result: McsResult): Promise<void> {
  const values = { domain: result.domain, result: JSON.stringify(result), created_at: result.measured_at, expires_at: result.expires_at }
  await db
    .insertInto('mcs_results')
    .values(values)
    .onConflict((oc) =>
      oc.column('domain').doUpdateSet({ result: values.result, created_at: values.created_at, expires_at: values.expires_at }),
    )
    .execute()
}
