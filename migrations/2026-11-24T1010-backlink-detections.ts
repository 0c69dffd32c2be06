import { type Kysely, sql } from 'kysely'

/**
 * Every (site, source, target) ever announced by backlink.detected, so a backlink that is retracted
 * and later verified again is not announced twice. Filled from the backlinks stored now and from
 * the events already fired.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('backlink_detections')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('detected_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('backlink_detections_pkey', ['site_id', 'source', 'target'])
    .execute()
  await sql`
    insert into backlink_detections (site_id, source, target, detected_at)
    select site_id, source, target, verified_at from site_backlinks
    on conflict do nothing
  `.execute(db)
  await sql`
    insert into backlink_detections (site_id, source, target, detected_at)
    select e.site_id, e.data->>'source', e.data->>'target', min(e.created_at)
    from events e join sites s on s.id = e.site_id
    where e.type = 'backlink.detected' and e.data->>'source' is not null and e.data->>'target' is not null
    group by e.site_id, e.data->>'source', e.data->>'target'
    on conflict do nothing
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backlink_detections').ifExists().execute()
}
