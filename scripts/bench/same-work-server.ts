// Bare Fastify servers that do the database work of one route of the service and send the same
// bytes with the same headers, without the service's frame (authentication, plan, quota, audit
// log, idempotency, validation, logging): what the route would cost written by hand with pg.
//   sites  GET: the select of GET /v1/sites (one page of an account's sites with their domains and
//          total), mapped to the same JSON
//   patch  PATCH: the `update … returning` of PATCH /v1/blocks/{id} on the block given, answered
//          with the block as the service shows it
//   turn   POST: one `insert … returning` of a row the size of a chat turn (the answer and both
//          transcript texts), answered with the answer
// Arguments: port, mode, database URL, a JSON file with the mode's settings and the headers to send.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import pg from 'pg'
import { blockView } from '../../src/domain/sites/blocks.ts'
import { siteView } from '../../src/domain/sites/views.ts'

const [, , port, mode, databaseUrl, settingsFile] = process.argv
const settings = JSON.parse(readFileSync(settingsFile!, 'utf8')) as {
  headers: Record<string, string>
  accountId?: string
  perPage?: number
  blockId?: string
  response?: string
  config?: { BASE_URL: string; SITES_DOMAIN: string }
}
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
// An idle connection cut by the server (its database dropped at the end of a run) is no failure of the run.
pool.on('error', () => {})
const app = Fastify({ logger: false })
const { headers } = settings

const SITES = `with "page" as (select "id" from "sites" where "account_id" = $1 order by "created_at", "id" limit $2 offset $3),
  "primary_domains" as (select distinct on ("site_id") "site_id", "hostname" from "domains" where "status" = 'active' and "site_id" in (select "id" from "page")
    order by "site_id", "primary" desc, "verified_at", "id")
  select "sites".*, "primary_domains"."hostname" as "domain", coalesce((select c.sites from account_site_counts c where c.account_id = $1), 0) as "total_count"
  from "sites" inner join "page" on "page"."id" = "sites"."id" left join "primary_domains" on "primary_domains"."site_id" = "sites"."id"
  order by "sites"."created_at", "sites"."id"`

const TURN_TABLE = `create table if not exists bench_turns (session_id text not null, turn_id text not null, request_hash text not null, response text not null,
  visitor_text text not null, assistant_text text not null, created_at timestamptz not null default now(), primary key (session_id, turn_id))`

if (mode === 'sites') {
  const perPage = settings.perPage ?? 20
  app.get('/', async (_request, reply) => {
    const { rows } = await pool.query({ name: 'sites', text: SITES, values: [settings.accountId, perPage, 0] })
    const total = rows.length ? Number(rows[0].total_count) : 0
    const body = JSON.stringify({ data: rows.map((row) => siteView(row, settings.config!)), meta: { total, page: 1, per_page: perPage } })
    return reply.headers(headers).send(body)
  })
} else if (mode === 'patch') {
  app.patch('/', async (request, reply) => {
    const { content } = request.body as { content: unknown }
    const { rows } = await pool.query({
      name: 'patch',
      text: 'update blocks set content = $1, updated_at = now() where id = $2 returning *',
      values: [JSON.stringify(content), settings.blockId],
    })
    return reply.headers(headers).send(JSON.stringify(blockView(rows[0])))
  })
} else if (mode === 'turn') {
  await pool.query(TURN_TABLE)
  const response = settings.response!
  const answer = (JSON.parse(response) as { reply: string }).reply
  app.post('/', async (request, reply) => {
    const body = request.body as { session_id: string; turn_id: string; message: string }
    const { rows } = await pool.query({
      name: 'turn',
      text: 'insert into bench_turns (session_id, turn_id, request_hash, response, visitor_text, assistant_text) values ($1, $2, $3, $4, $5, $6) returning response',
      values: [body.session_id, body.turn_id, '0'.repeat(64), response, body.message, answer],
    })
    return reply.headers(headers).send(rows[0].response)
  })
}
app.get('/ready', async () => ({ ready: true }))
await app.listen({ port: Number(port), host: '127.0.0.1' })
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
)
