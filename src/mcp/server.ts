import { McpServer } from '@modelcontextprotocol/server'
import { OPENAPI_INFO } from '../infra/openapi.ts'
import { registerResources } from './resources.ts'
import { registerTool, type Caller } from './tool.ts'
import { leadTools } from './tools/leads.ts'
import { pageTools } from './tools/pages.ts'
import { publicTools } from './tools/public.ts'
import { siteTools } from './tools/sites.ts'

export const SERVER_INFO = { name: 'web-presence', title: 'Web Presence', version: OPENAPI_INFO.version }

const INSTRUCTIONS =
  'Tools of a website-building platform. Anyone may check domains (audit_domain, check_site_quality, get_core_web_vitals) and read the price list. ' +
  'Site tools act for an account: an agent registered anonymously must first be claimed by its person (POST /agent/identity/claim), then use the post-claim token, which carries mcp:tools.'

/**
 * One server per request (stateless serving): built for the verified caller, so every tool call
 * knows the token it runs for. Registering is cheap; schemas are compiled once per process.
 */
export function buildMcpServer(caller: Caller): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false }, resources: { listChanged: false } } })
  for (const spec of [...publicTools, ...siteTools, ...pageTools, ...leadTools]) registerTool(server, spec, caller)
  registerResources(server, caller)
  return server
}
