import { type Kysely, sql } from 'kysely'

/**
 * The media library (DESIGN.md 14): one row per image an account uploaded, its variants listed
 * on the row; the variants' bytes in `media_files` unless object storage holds them. A release
 * names the media its pages show in `build_media`, so media removed from the library stays
 * served for the releases that use it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table media (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      filename text not null,
      content_type text not null,
      width integer not null,
      height integer not null,
      bytes integer not null,
      stored_bytes integer not null,
      sha256 text not null,
      alt text not null default '',
      variants jsonb not null,
      created_by text,
      created_at timestamptz not null default now(),
      deleted_at timestamptz
    )`.execute(db)
  await sql`create unique index media_account_sha256 on media (account_id, sha256)`.execute(db)
  await sql`create index media_account_newest on media (account_id, created_at desc, id desc) where deleted_at is null`.execute(db)
  await sql`
    create table media_files (
      key text primary key,
      media_id text not null references media(id) on delete cascade,
      content_type text not null,
      body bytea not null
    )`.execute(db)
  await sql`create index media_files_media on media_files (media_id)`.execute(db)
  await sql`
    create table build_media (
      build_id text not null references builds(id) on delete cascade,
      media_id text not null references media(id) on delete cascade,
      primary key (build_id, media_id)
    )`.execute(db)
  await sql`create index build_media_media on build_media (media_id)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table build_media`.execute(db)
  await sql`drop table media_files`.execute(db)
  await sql`drop table media`.execute(db)
}
