// The smallest MCP server the official SDK makes: stateless Streamable HTTP on Fastify through the
// same bridge as /mcp, one tool answering a constant, no authentication, no database, no hooks.
// Given a database URL and an account id, its get_site instead does what the service's get_site
// does minus the frame: the same select of the account's site (one round trip, a pool of the
// service's size), answered as the same site view under the same output schema.
import Fastify from 'fastify'
import pg from 'pg'
import { Type } from 'typebox'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'
import { Site, siteView } from '../../src/domain/sites/views.ts'
import type { SiteRecord } from '../../src/domain/sites/sites.ts'
import { serveMcp } from '../../src/mcp/transport.ts'

const port = Number(process.argv[2] ?? 3998)
const databaseUrl = process.argv[3]
const accountId = process.argv[4]
const config = { BASE_URL: process.argv[5] ?? '', SITES_DOMAIN: process.argv[6] ?? 'localhost' }
const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 10 }) : undefined
pool?.on('error', () => {})
const url = `http://127.0.0.1:${port}/mcp`
const input = fromJsonSchema(
  Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }) as never,
)
const constantOutput = fromJsonSchema(Type.Object({ id: Type.String(), name: Type.String() }) as never)
const answer = { id: 'site_constant', name: 'Constant' }

const SITE = `select sites.*, (select d.hostname from domains d where d.site_id = sites.id and d.status = 'active' order by d."primary" desc, d.verified_at, d.id limit 1) as domain
  from sites where sites.account_id = $1 and sites.id = $2`

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' })
  if (pool) {
    server.registerTool('get_site', { inputSchema: input, outputSchema: fromJsonSchema(Site as never) }, async (args) => {
      const { rows } = await pool.query({ name: 'site', text: SITE, values: [accountId, (args as { site_id: string }).site_id] })
      const site = siteView(rows[0] as SiteRecord, config)
      return { content: [{ type: 'text', text: JSON.stringify(site) }], structuredContent: site }
    })
  } else {
    server.registerTool('get_site', { inputSchema: input, outputSchema: constantOutput }, async () => ({
      content: [{ type: 'text', text: JSON.stringify(answer) }],
      structuredContent: answer,
    }))
  }
  return server
})

const app = Fastify({ logger: false })
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
app.get('/', async () => ({ ready: true }))
app.post('/mcp', (request, reply) => serveMcp(handler, request, reply, url, { token: '', clientId: 'bench', scopes: [] }))
await app.listen({ port, host: '127.0.0.1' })
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool?.end())
      .then(() => process.exit(0)),
)
