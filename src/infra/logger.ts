import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify'
import { pino, type Bindings, type ChildLoggerOptions, type Level } from 'pino'
import type { Config } from '../config.ts'

/**
 * Secrets and personal data never reach the log. The request serializer below already drops
 * headers and query strings; these paths catch secrets in a request body or a logged object.
 * Exact paths only: wildcard paths make pino copy every log line and halve throughput.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'body.password',
  'body.token',
  'body.session_token',
  'body.claim_token',
  'body.access_token',
  'body.refresh_token',
  'body.assertion',
  'body.code',
  'body.code_verifier',
  'body.email',
  'body.login_hint',
  'body.payload.email',
  'session_token',
  'claim_token',
  'access_token',
  'refresh_token',
  'token',
  'email',
]

export function loggerOptions(config: Config) {
  return {
    level: config.LOG_LEVEL,
    redact: { paths: redactPaths, censor: '[redacted]' },
    // Only method and path: query strings may carry codes, tokens or a visitor's email.
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, path: req.url.split('?')[0], ip: req.ip }),
    },
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * Keeps a well-formed incoming x-request-id (set by a load balancer) so logs join up; else a new
 * UUID. Either way its characters need no escaping in JSON: the access line writes it as it is.
 */
export function genReqId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/** What the access line names a request by when no route of the router answered it (a published site's page). */
export interface AccessLabel {
  route: string
  operation: string
}

const accessLabels = new WeakMap<IncomingMessage, AccessLabel>()

/** Names the request in its access line: for answers made before or instead of a route (a published site's page). */
export function labelAccess(raw: IncomingMessage, label: AccessLabel): void {
  accessLabels.set(raw, label)
}

type PinoSymbol =
  | 'lsCacheSym'
  | 'timeSym'
  | 'chindingsSym'
  | 'streamSym'
  | 'endSym'
  | 'messageKeySym'
  | 'formattersSym'
  | 'mixinSym'
  | 'hooksSym'
  | 'msgPrefixSym'
  | 'nestedKeySym'
  | 'needsMetadataGsym'
type PinoInternals = Record<symbol, unknown> & { isLevelEnabled(level: string): boolean }
type LineWriter = (reqId: string, method: string | undefined, route: string, operation: unknown, status: number, ms: number) => void

const lineWriters = new WeakMap<FastifyBaseLogger, LineWriter>()
const SAFE = /^[\w .:/*@{}-]*$/

/** A string as JSON: most values of an access line need no escaping. */
function jsonString(value: string): string {
  return SAFE.test(value) ? `"${value}"` : JSON.stringify(value)
}

/**
 * The access line written as pino writes `log.info({ reqId, method, route, operation, status, ms },
 * 'request')`, byte for byte, from the logger's own parts (level label, timestamp, bindings, end),
 * without pino's general path (argument handling, serializer and redaction lookups for every key),
 * which costs more than the rest of a cheap request's logging. None of these keys has a serializer
 * or a redaction path. A logger that formats lines itself (formatters, mixin, hooks, a message
 * prefix or nested key, a stream wanting metadata) gets `log.info` instead.
 */
function lineWriter(log: FastifyBaseLogger): LineWriter {
  // msgPrefixSym is missing from pino's types only.
  const {
    lsCacheSym,
    timeSym,
    chindingsSym,
    streamSym,
    endSym,
    messageKeySym,
    formattersSym,
    mixinSym,
    hooksSym,
    msgPrefixSym,
    nestedKeySym,
    needsMetadataGsym,
  } = pino.symbols as unknown as Record<PinoSymbol, symbol>
  const logger = log as unknown as PinoInternals
  const formatters = logger[formattersSym] as { log?: unknown } | undefined
  const stream = logger[streamSym] as ({ write(line: string): void } & Record<symbol, unknown>) | undefined
  const plain =
    stream !== undefined &&
    typeof logger[timeSym] === 'function' &&
    logger[lsCacheSym] !== undefined &&
    !formatters?.log &&
    !logger[mixinSym] &&
    !(logger[hooksSym] as { streamWrite?: unknown } | undefined)?.streamWrite &&
    !logger[msgPrefixSym] &&
    !logger[nestedKeySym] &&
    stream[needsMetadataGsym] !== true
  if (!plain)
    return (reqId, method, route, operation, status, ms) =>
      log.info({ reqId, method, route, operation, status, ms: Math.round(ms) }, 'request')
  const time = logger[timeSym] as () => string
  const message = `,${jsonString(logger[messageKeySym] as string)}:"request"${logger[endSym] as string}`
  return (reqId, method, route, operation, status, ms) => {
    if (!logger.isLevelEnabled('info')) return
    const level = (logger[lsCacheSym] as Record<number, string>)[30]
    // A request id needs no escaping (genReqId's characters), nor does a method (a token Node's parser accepted);
    // testing a fresh id to see so cost more than building the rest of the line.
    const fields =
      `,"reqId":"${reqId}"${method === undefined ? '' : `,"method":"${method}"`},"route":${jsonString(route)}` +
      `${typeof operation === 'string' ? `,"operation":${jsonString(operation)}` : operation === undefined ? '' : `,"operation":${JSON.stringify(operation)}`}` +
      `,"status":${status},"ms":${Number.isFinite(ms) ? Math.round(ms) : null}`
    stream.write(level + time() + (logger[chindingsSym] as string) + fields + message)
  }
}

/** The access line of a request that completed: the same fields whichever way it was answered. */
export function logAccess(
  log: FastifyBaseLogger,
  reqId: string,
  method: string | undefined,
  route: string,
  operation: unknown,
  status: number,
  ms: number,
): void {
  let write = lineWriters.get(log)
  if (!write) lineWriters.set(log, (write = lineWriter(log)))
  write(reqId, method, route, operation, status, ms)
}

/**
 * One log line per request, written when it completes, instead of Fastify's two. It goes through
 * the root logger with the request id as a field, so a request that logs nothing else never needs
 * its own child logger (see LazyRequestLogger); the line reads the same either way.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // routeOptions is built anew on every read: read it once.
    const label = accessLabels.get(request.raw)
    let route: string
    let operation: unknown
    if (label) ({ route, operation } = label)
    else {
      const options = request.routeOptions
      route = options.url ?? 'unmatched'
      operation = options.config.operation
    }
    if (!error) return logAccess(request.server.log, request.id, request.method, route, operation, reply.statusCode, reply.elapsedTime)
    const line = {
      reqId: request.id,
      method: request.method,
      route,
      operation,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    }
    if (isClientAbort(error, request)) request.server.log.info({ ...line, reason: errorCode(error) }, 'request aborted by the client')
    else request.server.log.error({ ...line, err: error }, 'request errored')
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (isClientAbort(error, request))
      request.server.log.info({ reqId: request.id, status: reply.statusCode, reason: errorCode(error) }, 'request aborted by the client')
    else super.streamError(error, request, reply)
  }
}

const ABORT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ABORT_ERR',
])

function errorCode(error: Error): string {
  return (error as Error & { code?: unknown }).code?.toString() ?? error.name
}

/**
 * A failure that only says the client went away (closed the tab, timed out, dropped the
 * connection): nothing is wrong with the service, so it is logged at info, not as an error.
 */
export function isClientAbort(error: Error, request: FastifyRequest): boolean {
  const socket = request.raw.socket as { destroyed?: boolean } | null | undefined
  const gone = request.raw.destroyed || socket?.destroyed === true || request.signal?.aborted === true
  return gone && (ABORT_CODES.has(errorCode(error)) || error.name === 'AbortError')
}

type LogArgs = [unknown, ...unknown[]]

/**
 * `request.log`: the pino child bound to the request id, made the first time the request logs.
 * Fastify asks for a child logger on every request; making a pino child serialises its bindings
 * at once, which was a measurable share of the cheapest requests, and most requests never use it.
 */
class LazyRequestLogger {
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #child: FastifyBaseLogger | undefined

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  get #logger(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options))
  }

  get level(): string {
    return this.#logger.level
  }
  set level(level: string) {
    this.#logger.level = level
  }
  #log(level: Level, args: LogArgs): void {
    ;(this.#logger[level] as (...a: LogArgs) => void)(...args)
  }
  fatal(...args: LogArgs) {
    this.#log('fatal', args)
  }
  error(...args: LogArgs) {
    this.#log('error', args)
  }
  warn(...args: LogArgs) {
    this.#log('warn', args)
  }
  info(...args: LogArgs) {
    this.#log('info', args)
  }
  debug(...args: LogArgs) {
    this.#log('debug', args)
  }
  trace(...args: LogArgs) {
    this.#log('trace', args)
  }
  silent() {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options)
  }
}

/** Fastify's `childLoggerFactory`: a lazy child per request. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger
}
