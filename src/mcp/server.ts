import type { FastifyInstance } from 'fastify'
import { McpServer, type McpRequestContext } from '@modelcontextprotocol/server'
import { OPENAPI_INFO } from '../infra/openapi.ts'
import { registerResources } from './resources.ts'
import { registerTool, type CallerLease } from './tool.ts'
import { billingTools } from './tools/billing.ts'
import { leadTools } from './tools/leads.ts'
import { mediaTools } from './tools/media.ts'
import { pageTools } from './tools/pages.ts'
import { publicTools } from './tools/public.ts'
import { siteTools } from './tools/sites.ts'

export const SERVER_INFO = { name: 'web-presence', title: 'Web Presence', version: OPENAPI_INFO.version }

const INSTRUCTIONS =
  'Tools of a website-building platform. Anyone may check domains (audit_domain, check_site_quality, get_core_web_vitals) and read the price list. ' +
  'Site tools act for an account: an agent registered anonymously must first be claimed by its person (POST /agent/identity/claim), then use the post-claim token, which carries mcp:tools.'

const TOOLS = [...publicTools, ...siteTools, ...pageTools, ...leadTools, ...mediaTools, ...billingTools]
const TOOL_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]))

/**
 * The one tool a 2026-07-28 tools/call needs, from its Mcp-Method and Mcp-Name headers. The SDK
 * has already checked both against the body when it asks for a server, and refused the request if
 * they differ; a name given in the header's base64 form is not ours, so all tools are registered.
 */
function calledTool(context: McpRequestContext) {
  const headers = context.era === 'modern' ? context.requestInfo?.headers : undefined
  if (headers?.get('mcp-method') !== 'tools/call') return undefined
  return TOOL_BY_NAME.get(headers.get('mcp-name') ?? '')
}

/**
 * One server per request (stateless serving): built for the verified caller, so every tool call
 * knows the token it runs for. Schemas are compiled once per process. A tools/call of the
 * 2026-07-28 revision gets a server holding only the tool it calls: registering all of them and
 * the resources was a tenth of the cost of a call.
 */
export function buildMcpServer(app: FastifyInstance, lease: CallerLease, context: McpRequestContext): McpServer {
  const called = calledTool(context)
  if (called) {
    // Declaring the resources capability installs the resource handlers; a tools/call answers
    // neither its capabilities nor its instructions, so this server declares tools alone.
    const server = new McpServer(SERVER_INFO, { capabilities: { tools: { listChanged: false } } })
    registerTool(server, called, lease)
    return server
  }
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
  })
  for (const spec of TOOLS) registerTool(server, spec, lease)
  registerResources(server, app, lease)
  return server
}
