// The smallest MCP server the official SDK makes: stateless Streamable HTTP on Fastify through the
// same bridge as /mcp, one tool answering a constant, no authentication, no database, no hooks.
import Fastify from 'fastify'
import { Type } from 'typebox'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'
import { serveMcp } from '../../src/mcp/transport.ts'

const port = Number(process.argv[2] ?? 3998)
const url = `http://127.0.0.1:${port}/mcp`
const input = fromJsonSchema(Type.Object({ site_id: Type.String() }) as never)
const output = fromJsonSchema(Type.Object({ id: Type.String(), name: Type.String() }) as never)
const answer = { id: 'site_constant', name: 'Constant' }

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' })
  server.registerTool('get_site', { inputSchema: input, outputSchema: output }, async () => ({ content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer }))
  return server
})

const app = Fastify({ logger: false })
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
app.get('/', async () => ({ ready: true }))
app.post('/mcp', (request, reply) => serveMcp(handler, request, reply, url, { token: '', clientId: 'bench', scopes: [] }))
await app.listen({ port, host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
