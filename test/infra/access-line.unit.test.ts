import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it, vi } from 'vitest'
import type { FastifyBaseLogger } from 'fastify'
import { loggerOptions, logAccess } from '../../src/infra/logger.ts'
import type { Config } from '../../src/config.ts'

/** A logger as the service makes it, writing into a list of lines. */
function capturing(options: object = {}) {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'))
      done()
    },
  })
  const log = pino({ ...loggerOptions({ LOG_LEVEL: 'info' } as Config), ...options }, stream) as unknown as FastifyBaseLogger
  return { log, lines }
}

// The access line is written without pino's general path; it must read exactly as pino writes it.
describe('the access line', () => {
  const cases: Array<[string, string | undefined, string, unknown, number, number]> = [
    ['4f9c1c4e-6f0e-4a43-9a7b-2f1a0c5f8e11', 'GET', '/api/pricing', 'public.pricing', 200, 1.4],
    ['lb-1234.abc', 'POST', '/v1/sites/:siteId/pages/*', undefined, 404, 0],
    ['x', 'GET', 'unmatched', undefined, 400, 12.5],
    ['x', 'GET', 'a "quoted" \\ route é\n', 'odd "operation"', 500, Number.NaN],
  ]

  it('has the same bytes as log.info with the same fields', () => {
    vi.useFakeTimers({ now: 1_764_000_000_000, toFake: ['Date'] })
    try {
      const fast = capturing()
      const reference = capturing()
      for (const [reqId, method, route, operation, status, ms] of cases) {
        logAccess(fast.log, reqId, method, route, operation, status, ms)
        reference.log.info({ reqId, method, route, operation, status, ms: Math.round(ms) }, 'request')
      }
      expect(fast.lines).toEqual(reference.lines)
      expect(JSON.parse(fast.lines[0]!)).toMatchObject({
        level: 30,
        reqId: cases[0]![0],
        route: '/api/pricing',
        operation: 'public.pricing',
        status: 200,
        ms: 1,
        msg: 'request',
      })
    } finally {
      vi.useRealTimers()
    }
  })

  it('is not written below the info level, and a logger that formats its lines keeps doing so', () => {
    const quiet = capturing({ level: 'warn' })
    logAccess(quiet.log, 'x', 'GET', '/', undefined, 200, 1)
    expect(quiet.lines).toEqual([])
    const formatted = capturing({ mixin: () => ({ region: 'eu' }) })
    logAccess(formatted.log, 'x', 'GET', '/', undefined, 200, 1)
    expect(JSON.parse(formatted.lines[0]!)).toMatchObject({ region: 'eu', reqId: 'x', msg: 'request' })
  })
})
