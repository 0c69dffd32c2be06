import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/** The rooms of docs/architecture.md: one interface group each, none importing another. */
const ROOMS = ['public', 'agent', 'identity', 'rest', 'mcp', 'graphql', 'sites', 'dashboard', 'billing']
/** What every room may use, and which must never reach back into a room. */
const SHARED = ['frame', 'domain', 'infra', 'errors.ts', 'schemas.ts', 'config.ts']
/**
 * The shared layers from the bottom up (app.ts ─→ rooms ─→ frame ─→ domain ─→ errors.ts ─→ infra ─→
 * config.ts): a layer imports only layers below it or its own, never one above.
 */
const LAYERS: Record<string, number> = { 'config.ts': 0, 'schemas.ts': 0, infra: 1, 'errors.ts': 2, domain: 3, frame: 4 }

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js)$/.test(entry.name) ? [path] : []
  })
}

/** The top-level folder (or file) of src/ a path lies in. */
const areaOf = (path: string) => relative(src, path).split(sep)[0] ?? ''

/** Every relative module a file imports or re-exports, statically or dynamically, resolved to its path. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) => match[1]!)
  return specifiers.map((specifier) => resolve(dirname(file), specifier))
}

/** The imports of one file that cross a line docs/architecture.md draws, as "from → to". */
function crossings(file: string, text: string): string[] {
  const from = areaOf(file)
  return importsOf(file, text)
    .filter((target) => target.startsWith(src + sep) && ROOMS.includes(areaOf(target)) && areaOf(target) !== from)
    .filter(() => ROOMS.includes(from) || SHARED.includes(from))
    .map((target) => `${relative(src, file)} → ${relative(src, target)}`)
}

/** The imports of one shared file that reach up to a higher shared layer, as "from → to". */
function upward(file: string, text: string): string[] {
  const level = LAYERS[areaOf(file)]
  if (level === undefined) return []
  return importsOf(file, text)
    .filter((target) => target.startsWith(src + sep) && (LAYERS[areaOf(target)] ?? -1) > level)
    .map((target) => `${relative(src, file)} → ${relative(src, target)}`)
}

/** The tables of src/infra/tables.ts. */
const TABLES = new Set(
  [...readFileSync(join(src, 'infra', 'tables.ts'), 'utf8').matchAll(/^  ([a-z_0-9]+): [A-Z][A-Za-z]*Table$/gm)].map((match) => match[1]!),
)

/** The tables a file queries: named in quotes to Kysely's builders, or after from, join, into or update in raw SQL. */
function tablesOf(text: string): string[] {
  const quoted = [...text.matchAll(/\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|mergeInto)\(\s*'([a-z_0-9]+)/g)]
  const rawSql = [...text.matchAll(/\bsql`([^`]*)`/g)].map((match) => match[1]!).join('\n')
  const raw = [...rawSql.matchAll(/\b(?:from|join|into|update)\s+([a-z_0-9]+)\b/gi)]
  return [...new Set([...quoted, ...raw].map((match) => match[1]!.toLowerCase()).filter((name) => TABLES.has(name)))]
}

/**
 * The tables that are one room's own (the shared layers never query them) yet are queried by
 * another room too, with those rooms: one room reading another's data. Data two rooms need has its
 * home in src/domain, and they reach it through its functions.
 */
function sharedByRooms(files: Array<{ file: string; text: string }>): string[] {
  const rooms = new Map<string, Set<string>>()
  const shared = new Set<string>()
  for (const { file, text } of files) {
    const area = areaOf(file)
    for (const table of tablesOf(text)) {
      if (ROOMS.includes(area)) rooms.set(table, (rooms.get(table) ?? new Set()).add(area))
      else shared.add(table)
    }
  }
  return [...rooms]
    .filter(([table, by]) => by.size > 1 && !shared.has(table))
    .map(([table, by]) => `${table}: ${[...by].sort().join(', ')}`)
}

/** The job runner's modules: the only ones that write the job queue's SQL. */
const isJobRunner = (file: string) => /^infra\/jobs[^/]*\.ts$/.test(relative(src, file).split(sep).join('/'))

/**
 * Whether a file queries the job queue's table itself: through Kysely's builders, or in SQL of a
 * template or a string (sql.raw included). Other code queues and completes jobs through the
 * runner's API (enqueueJob, jobWrites), so the queue's columns and states are written in one place.
 */
function queriesJobs(text: string): boolean {
  const inStrings =
    /'[^'\n]*\b(?:from|join|into|update)\s+jobs\b[^'\n]*'|"[^"\n]*\b(?:from|join|into|update)\s+jobs\b[^"\n]*"|`[^`]*\b(?:from|join|into|update)\s+jobs\b[^`]*`/i
  return tablesOf(text).includes('jobs') || inStrings.test(text)
}

describe('the layout of docs/architecture.md', () => {
  it('has no room importing another room, and nothing shared (frame, domain, infra, errors) importing a room', () => {
    expect(sourceFiles(src).flatMap((file) => crossings(file, readFileSync(file, 'utf8')))).toEqual([])
  })

  it('has no shared layer importing one above it (infra nothing of errors.ts, domain or frame; errors.ts nothing of domain)', () => {
    expect(sourceFiles(src).flatMap((file) => upward(file, readFileSync(file, 'utf8')))).toEqual([])
  })

  it('has no room querying the tables of another room: data two rooms use has its home in src/domain', () => {
    const files = sourceFiles(src).map((file) => ({ file, text: readFileSync(file, 'utf8') }))
    expect(sharedByRooms(files)).toEqual([])
  })

  it('finds one room reading the tables of another, through Kysely or raw SQL', () => {
    expect(TABLES.has('site_backlinks') && TABLES.has('sites')).toBe(true)
    const files = [
      { file: join(src, 'sites', 'x.ts'), text: "await db.insertInto('site_backlinks').values(row).execute()" },
      { file: join(src, 'rest', 'x.ts'), text: 'await sql`select count(*) from site_backlinks where site_id = ${id}`.execute(db)' },
      { file: join(src, 'domain', 'x.ts'), text: "await db.selectFrom('sites').selectAll().execute()" },
      { file: join(src, 'mcp', 'x.ts'), text: "await db.selectFrom('sites').selectAll().execute() // from the list" },
    ]
    expect(sharedByRooms(files)).toEqual(['site_backlinks: rest, sites'])
  })

  it("has the job queue's table queried by the job runner only (src/infra/jobs*.ts)", () => {
    const offenders = sourceFiles(src).filter((file) => !isJobRunner(file) && queriesJobs(readFileSync(file, 'utf8')))
    expect(offenders.map((file) => relative(src, file))).toEqual([])
    expect(queriesJobs(readFileSync(join(src, 'infra', 'jobs.ts'), 'utf8'))).toBe(true)
  })

  it("finds the job queue's table queried through Kysely, a SQL template or a raw string", () => {
    expect(TABLES.has('jobs')).toBe(true)
    expect(queriesJobs("await db.updateTable('jobs').set({ state: 'succeeded' }).execute()")).toBe(true)
    expect(queriesJobs('const done = sql`update jobs as j set state = ${state} where j.id = ${id}`')).toBe(true)
    expect(queriesJobs('sql`with done as (${sql.raw("update jobs set state = \'succeeded\'")}) select 1`')).toBe(true)
    expect(queriesJobs("const claim = 'select id from jobs where state = $1'")).toBe(true)
    expect(queriesJobs('sql`with done as (${jobWrites.complete(jobs)}) select id from done`')).toBe(false)
    expect(queriesJobs("// the runner takes new jobs from jobs queued by others\nawait enqueueJob(db, 'x', {})")).toBe(false)
  })

  it('has dashboard routes typed by their schemas and checked by the one CSRF hook of the scope', () => {
    const handWritten = sourceFiles(join(src, 'dashboard'))
      .filter((file) => /\bapp\.(?:get|post|put|patch|delete)<|preHandler: app\.csrfProtection/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file))
    expect(handWritten).toEqual([])
  })

  it('has every job defined by the jobs plugin, none in a room', () => {
    const defining = sourceFiles(src).filter(
      (file) => ROOMS.includes(areaOf(file)) && /\bjobs\.define\s*[<(]/.test(readFileSync(file, 'utf8')),
    )
    expect(defining.map((file) => relative(src, file))).toEqual([])
    expect(readFileSync(join(src, 'jobs.ts'), 'utf8')).toMatch(/app\.jobs\.define\(/)
  })

  it('knows every folder of src/', () => {
    const areas = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(areas.filter((area) => !ROOMS.includes(area) && !SHARED.includes(area))).toEqual([])
  })

  it('finds the crossings it is there to refuse, in every form of import', () => {
    const text = [
      "import { auditedChange } from '../rest/audited-change.ts'",
      "export { view } from '../dashboard/layout.ts'",
      "const tools = await import('../mcp/tool.ts')",
      "import '../sites/index.ts'",
      "import { errors } from '../errors.ts'",
      "import type { AccountFrame } from '../frame/index.ts'",
      "import { registerTool } from './tool.ts'",
    ].join('\n')
    expect(crossings(join(src, 'mcp', 'x.ts'), text)).toEqual([
      'mcp/x.ts → rest/audited-change.ts',
      'mcp/x.ts → dashboard/layout.ts',
      'mcp/x.ts → sites/index.ts',
    ])
    expect(crossings(join(src, 'infra', 'x.ts'), "import { toolFailure } from '../mcp/tool.ts'")).toEqual(['infra/x.ts → mcp/tool.ts'])
    expect(crossings(join(src, 'frame', 'x.ts'), "import { auditedChange } from '../dashboard/audited-change.ts'")).toEqual([
      'frame/x.ts → dashboard/audited-change.ts',
    ])
    expect(upward(join(src, 'infra', 'x.ts'), "import type { Plan } from '../domain/accounts/plans.ts'")).toEqual([
      'infra/x.ts → domain/accounts/plans.ts',
    ])
    expect(upward(join(src, 'infra', 'x.ts'), "import { errors } from '../errors.ts'")).toEqual(['infra/x.ts → errors.ts'])
    expect(upward(join(src, 'domain', 'x.ts'), "import { errors } from '../errors.ts'\nimport { sql } from '../infra/db.ts'")).toEqual([])
    expect(crossings(join(src, 'domain', 'accounts', 'x.ts'), "import { entryOf } from '../../rest/audited-change.ts'")).toEqual([
      'domain/accounts/x.ts → rest/audited-change.ts',
    ])
  })
})

/** The one module every HTML page is made and sent with (docs/architecture.md, "Errors and pages"). */
const PAGE_MODULE = join(src, 'infra', 'html.ts')

/** Where a file writes its own HTML document or answers text/html by itself, instead of the page module. */
function ownPageMachinery(text: string): string[] {
  const found: string[] = []
  if (/<!doctype\s+html/i.test(text)) found.push('its own document shell')
  if (/\.type\(\s*['"`]text\/html/.test(text) || /['"`]content-type['"`]\s*:\s*['"`]text\/html/i.test(text))
    found.push('its own way to send a page')
  if (/\bnew\s+SafeHtml\b|function\s+esc\s*\(/.test(text)) found.push('its own escaping')
  return found
}

describe('one page shell (docs/architecture.md)', () => {
  it('has every HTML page written into documentShell and sent by the page module, escaped by its html template', () => {
    const offenders = sourceFiles(src)
      .filter((file) => file !== PAGE_MODULE)
      .flatMap((file) => ownPageMachinery(readFileSync(file, 'utf8')).map((what) => `${relative(src, file)}: ${what}`))
    expect(offenders).toEqual([])
    expect(readFileSync(PAGE_MODULE, 'utf8')).toMatch(/export function documentShell[^]*<!doctype html>/)
  })

  it('finds a page family that brings its own shell, sender or escaping', () => {
    expect(ownPageMachinery('return html`<!DOCTYPE html><html lang="en"><body>${body}</body></html>`')).toEqual(['its own document shell'])
    expect(ownPageMachinery("reply.code(200).type('text/html; charset=utf-8').send(page)")).toEqual(['its own way to send a page'])
    expect(ownPageMachinery("reply.headers({ 'content-type': 'text/html' })")).toEqual(['its own way to send a page'])
    expect(ownPageMachinery("function esc(s: string) { return s.replace(/</g, '&lt;') }")).toEqual(['its own escaping'])
    expect(ownPageMachinery('sendPage(reply, 200, documentShell({ lang, title, style, body }))')).toEqual([])
  })
})
