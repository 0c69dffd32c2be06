// The first draft on the embedded database (PGlite, in memory): a site made from a template with
// business facts (the bakery, one language: five pages and their blocks, checked against the block
// schemas, the plan's site limit, the site's settings) by createAccountSite, beside a reference
// storing the same rows with plain inserts in one transaction. Both delete their site afterwards,
// so every round starts alike. Prints p50 and p90 of BENCH_DRAFTS runs each (default 200), in turn.
// Not part of npm test: node scripts/bench/drafts.ts
import pino from 'pino'
import { newId } from '../../src/infra/crypto.ts'
import { openDataStore } from '../../src/infra/db.ts'
import { migrateToLatest } from '../../src/infra/migrate.ts'
import { createAccountSite, prepareDraft, type SiteInput } from '../../src/domain/sites/sites.ts'
import { withTransaction } from '../../src/domain/transaction.ts'

const runs = Number(process.env.BENCH_DRAFTS ?? 200)
const log = pino({ level: 'warn' })
const store = await openDataStore({ databaseUrl: 'memory://', dataDir: '', log })
const db = store.db
await migrateToLatest(db)
const accountId = newId('acct')
await db.insertInto('accounts').values({ id: accountId, plan: 'max' }).execute()

const input: SiteInput = {
  name: 'Boulangerie Martin',
  default_locale: 'fr',
  template: 'bakery',
  business: {
    type: 'bakery',
    city: 'Lyon',
    phone: '+33 4 78 00 00 00',
    email: 'bonjour@martin.example',
    address: '12 rue Mercière',
    postal_code: '69002',
    opening_hours: { items: [{ day: 'tuesday', opens: '07:00', closes: '19:00' }] },
  },
}
const sample = (await prepareDraft(input))!
const blockCount = sample.pages.reduce((n, p) => n + p.blocks.length, 0)

/** The service's way: the draft made from the template and facts, then stored with the site. */
async function service(): Promise<string> {
  const draft = await prepareDraft(input)
  return (await createAccountSite(db, accountId, input, draft)).id
}

/** The reference: the same rows (a site, five pages, their blocks) inserted as they are. */
async function reference(): Promise<string> {
  const siteId = newId('site')
  await withTransaction(db, async (trx) => {
    await trx
      .insertInto('sites')
      .values({
        id: siteId,
        account_id: accountId,
        name: input.name,
        slug: `ref-${siteId
          .slice(5)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, '')}`,
        status: 'draft',
        default_locale: 'fr',
        locales: JSON.stringify(['fr']),
        settings: JSON.stringify({ theme: { preset: 'bakery' } }),
      })
      .execute()
    const pages = sample.pages.map((page) => ({ id: newId('page'), page }))
    await trx
      .insertInto('pages')
      .values(
        pages.map(({ id, page }) => ({
          id,
          site_id: siteId,
          path: page.path,
          locale: page.locale,
          title: page.title,
          description: page.description,
        })),
      )
      .execute()
    await trx
      .insertInto('blocks')
      .values(
        pages.flatMap(({ id, page }) =>
          page.blocks.map((b, position) => ({ id: newId('blk'), page_id: id, type: b.type, position, content: JSON.stringify(b.content) })),
        ),
      )
      .execute()
  })
  return siteId
}

async function timed(make: () => Promise<string>): Promise<number> {
  const started = performance.now()
  const id = await make()
  const ms = performance.now() - started
  await db.deleteFrom('sites').where('id', '=', id).execute()
  return ms
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!
for (let i = 0; i < 20; i++) {
  await timed(service)
  await timed(reference)
}
const ours: number[] = []
const theirs: number[] = []
for (let i = 0; i < runs; i++) {
  ours.push(await timed(service))
  theirs.push(await timed(reference))
}
const row = (name: string, values: number[]) =>
  `${name.padEnd(40)} p50 ${percentile(values, 0.5).toFixed(2)} ms   p90 ${percentile(values, 0.9).toFixed(2)} ms`
console.log(`A five-page draft (${blockCount} blocks) from the bakery template, ${runs} runs each on the embedded database`)
console.log(row('createAccountSite with the draft', ours))
console.log(row('reference: the same rows, plain inserts', theirs))
console.log(`ratio p50 ${(percentile(ours, 0.5) / percentile(theirs, 0.5)).toFixed(2)}x`)
const p50 = percentile(ours, 0.5)
console.log(`a five-page first draft: p50 ${p50.toFixed(2)} ms; target < 150 ms p50: ${p50 < 150 ? 'met' : 'NOT met'}`)
await store.close()
