import { type Kysely, sql } from 'kysely'

/**
 * Platform subdomains: every site gets a slug, unique over all sites, and is served at
 * {slug}.{SITES_DOMAIN}. Existing sites get theirs from their names, oldest first; a name already
 * taken gets -2, -3, … . A changed slug changes what a hostname serves, so it is announced on the
 * `hosted_sites` channel like a status or a release.
 */

const RESERVED = new Set([
  'admin',
  'api',
  'app',
  'assets',
  'auth',
  'cdn',
  'dashboard',
  'docs',
  'help',
  'login',
  'mail',
  'mcp',
  'oauth',
  'signin',
  'static',
  'status',
  'support',
  'www',
])

function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 50)
    .replace(/^-+|-+$/g, '')
  if (base === '') return 'site'
  return RESERVED.has(base) ? `${base}-site` : base
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('slug', 'text').execute()
  const sites = await db.selectFrom('sites').select(['id', 'name']).orderBy('created_at').orderBy('id').execute()
  const taken = new Set<string>()
  for (const site of sites as Array<{ id: string; name: string }>) {
    const base = slugFromName(site.name)
    let slug = base
    for (let n = 2; taken.has(slug); n++) slug = `${base.slice(0, 63 - `-${n}`.length).replace(/-+$/, '')}-${n}`
    taken.add(slug)
    await db.updateTable('sites').set({ slug }).where('id', '=', site.id).execute()
  }
  // Rows written without a slug (by hand, by an older instance during a rolling deploy) still get a unique one.
  await sql`alter table sites alter column slug set default ('site-' || substr(md5(gen_random_uuid()::text), 1, 12))`.execute(db)
  await sql`alter table sites alter column slug set not null`.execute(db)
  await sql`create unique index sites_slug on sites (slug)`.execute(db)
  await sql`drop trigger sites_hosted_notify on sites`.execute(db)
  await sql`create trigger sites_hosted_notify after update of live_build_id, status, slug or delete on sites for each row execute function hosted_sites_notify()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger sites_hosted_notify on sites`.execute(db)
  await sql`create trigger sites_hosted_notify after update of live_build_id, status or delete on sites for each row execute function hosted_sites_notify()`.execute(
    db,
  )
  await sql`drop index sites_slug`.execute(db)
  await db.schema.alterTable('sites').dropColumn('slug').execute()
}
