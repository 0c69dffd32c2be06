import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import type { Db } from '../../src/infra/db.ts'

/**
 * Switches the ai_sales_assistant add-on on for an account, as the operator's CLI does, so the
 * sales assistant of its sites answers (DESIGN.md 12). The account must be on plus or above.
 */
export async function withAssistantAddOn(db: Db, accountId: string): Promise<void> {
  await setAddOn(db, { accountId, addOn: 'ai_sales_assistant', on: true })
}
