import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { onPostgres } from '../helpers/database.ts'
import { openTestStore } from '../helpers/store.ts'

describe.skipIf(onPostgres)('a memory:// database', () => {
  it('keeps 16 MB of shared buffers, its files being in memory already, and serves as usual', async () => {
    const store = await openTestStore()
    const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(store.db)
    expect(rows).toEqual([{ shared_buffers: '16MB' }])
    // The usual settings of the embedded database still hold beside it.
    expect((await sql<{ search_path: string }>`show search_path`.execute(store.db)).rows).toEqual([{ search_path: 'public' }])
    expect(await store.db.selectFrom('accounts').select('id').execute()).toEqual([])
  })
})
