// The smallest MCP server the official SDK makes: stateless Streamable HTTP on Fastify through the
// same bridge as /mcp, one tool answering a constant, no authentication, no database, no hooks.
// Given a database URL, its tool instead reads the site named in its arguments from PostgreSQL
// (one round trip, a pool of the service's size): the SDK's cost plus the database's, nothing else.
import Fastify from 'fastify'
import pg from 'pg'
import { Type } from 'typebox'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'
import { serveMcp } from '../../src/mcp/transport.ts'

const port = Number(process.argv[2] ?? 3998)
const databaseUrl = process.argv[3]
const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 10 }) : undefined
pool?.on('error', () => {})
const url = `http://127.0.0.1:${port}/mcp`
const input = fromJsonSchema(Type.Object({ site_id: Type.String() }) as never)
const output = fromJsonSchema(Type.Object({ id: Type.String(), name: Type.String() }) as never)
const answer = { id: 'site_constant', name: 'Constant' }

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' })
  server.registerTool('get_site', { inputSchema: input, outputSchema: output }, async (args) => {
    const site = pool ? ((await pool.query('select id, name from sites where id = $1', [(args as { site_id: string }).site_id])).rows[0] as typeof answer) : answer
    return { content: [{ type: 'text', text: JSON.stringify(site) }], structuredContent: site }
  })
  return server
})

const app = Fastify({ logger: false })
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
app.get('/', async () => ({ ready: true }))
app.post('/mcp', (request, reply) => serveMcp(handler, request, reply, url, { token: '', clientId: 'bench', scopes: [] }))
await app.listen({ port, host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => pool?.end()).then(() => process.exit(0)))
