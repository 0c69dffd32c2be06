import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import type { Static, TSchema } from 'typebox'
import {
  fromJsonSchema,
  type CallToolResult,
  type McpServer,
  type ScopeChallengeHandler,
  type StandardSchemaWithJSON,
  type ToolAnnotations,
} from '@modelcontextprotocol/server'
import { classify, logFailure } from '../errors.ts'
import type { BearerAuth } from '../frame/bearer.ts'

/** Who is calling: the verified token and the HTTP request it came with. */
export interface Caller {
  app: FastifyInstance
  request: FastifyRequest
  auth: BearerAuth
}

/**
 * The caller of one exchange as the per-request server holds it: let go once the answer is sent
 * and no callback of the exchange still runs. The SDK keeps each registered tool in an object V8
 * allocates in old space (its literal has a getter), so whatever a tool's callback holds outlives
 * every scavenge until the next full collection; holding the request, reply and logger of each
 * call that way promoted them all (docs/decisions.md, "The MCP server's garbage").
 */
export class CallerLease {
  #caller: Caller | undefined
  #running = 0
  #ended = false
  /** The verified token, which the step-up challenge reads synchronously. */
  readonly auth: BearerAuth

  constructor(caller: Caller) {
    this.#caller = caller
    this.auth = caller.auth
  }

  /** Runs a callback of the exchange with its caller. */
  async use<T>(work: (caller: Caller) => Promise<T>): Promise<T> {
    const caller = this.#caller
    if (!caller) throw new Error('This MCP exchange is over')
    this.#running++
    try {
      return await work(caller)
    } finally {
      if (--this.#running === 0 && this.#ended) this.#caller = undefined
    }
  }

  /** The exchange's answer is sent (or its client gone): the caller goes once no callback runs. */
  end(): void {
    this.#ended = true
    if (this.#running === 0) this.#caller = undefined
  }
}

export type Scope = 'mcp:read' | 'mcp:tools'

export interface ToolSpec<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  name: string
  title: string
  description: string
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>
  /** The scope a call needs; `mcp:tools` is challenged with a 403 before the call runs (step-up). */
  scope: Scope
  input: I
  /** A JSON Schema of type object: the shape of the structured content. */
  output: O
  run: (args: Static<I>, caller: Caller) => Promise<Static<O>>
}

/** Keeps the argument types of one tool while lists hold tools of every shape. */
export function defineTool<I extends TSchema, O extends TSchema>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec
}

const compiled = new WeakMap<TSchema, StandardSchemaWithJSON>()

/** The SDK validates arguments and structured content with these; compiled once per schema. */
function standard(schema: TSchema): StandardSchemaWithJSON {
  let found = compiled.get(schema)
  if (!found) {
    found = fromJsonSchema(schema as never)
    compiled.set(schema, found)
  }
  return found
}

/**
 * Whether a value is already what a JSON round trip gives back: plain objects and arrays (no
 * holes) of strings, finite numbers, booleans and null, no undefined, no Date or other class.
 */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0)
  if (typeof value !== 'object' || depth > 32) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isPlainJson(value[i], depth + 1)) return false
    return true
  }
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto !== Object.prototype || 'toJSON' in value) return false
  for (const key in value) if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false
  return true
}

/**
 * Dates and other JSON-able values become what the client will see, so the output schema checks
 * that; the JSON text made for it is the text content too (serialised once). A view that is plain
 * JSON already (the shared views are) is used as it is, without parsing its text back.
 */
function plain(value: unknown): { text: string; output: Record<string, unknown> } {
  const text = JSON.stringify(value)
  return { text, output: (isPlainJson(value) ? value : JSON.parse(text)) as Record<string, unknown> }
}

function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] }
}

/**
 * A failed call as the agent sees it: a tool error (`isError: true`, which the agent can act on)
 * rather than a JSON-RPC error, with the registry's code; never a stack.
 */
function toolFailure(caller: Caller, error: unknown): CallToolResult {
  const classified = classify(error as FastifyError)
  logFailure(caller.request, error as FastifyError, classified)
  return errorResult(classified.code, classified.detail)
}

/** The HTTP status the same failure has on /v1, for the audit log. */
export function failureStatus(error: unknown): number {
  return classify(error as FastifyError).status
}

/**
 * The step-up challenge of the tools that change things: a 403 insufficient_scope naming
 * mcp:tools. An agent nobody has claimed gets it by its person's claim, and is told so.
 */
function toolsScope(auth: BearerAuth): ScopeChallengeHandler {
  return () => {
    if (auth.scopes.includes('mcp:tools')) return undefined
    const errorDescription = auth.accountId
      ? 'This tool needs a token with the scope mcp:tools'
      : 'This tool needs the scope mcp:tools, which an agent gets once its person claims it (POST /agent/identity/claim)'
    return { scopes: ['mcp:tools'], errorDescription }
  }
}

/** What the SDK is told of a tool apart from its caller: made once per tool (the SDK keeps, never changes, it). */
const described = new WeakMap<
  ToolSpec,
  {
    title: string
    description: string
    annotations: ToolAnnotations
    inputSchema: StandardSchemaWithJSON
    outputSchema: StandardSchemaWithJSON
  }
>()

function descriptionOf(spec: ToolSpec) {
  let found = described.get(spec)
  if (!found) {
    found = {
      title: spec.title,
      description: spec.description,
      annotations: { title: spec.title, ...spec.annotations },
      inputSchema: standard(spec.input),
      outputSchema: standard(spec.output),
    }
    described.set(spec, found)
  }
  return found
}

export function registerTool(server: McpServer, spec: ToolSpec, lease: CallerLease) {
  const description = descriptionOf(spec)
  server.registerTool(
    spec.name,
    spec.scope === 'mcp:tools' ? { ...description, scopeChallenge: toolsScope(lease.auth) } : description,
    (args: unknown): Promise<CallToolResult> =>
      lease.use(async (caller) => {
        try {
          const { text, output } = plain(await spec.run(args as never, caller))
          return { content: [{ type: 'text', text }], structuredContent: output }
        } catch (error) {
          return toolFailure(caller, error)
        }
      }),
  )
}
