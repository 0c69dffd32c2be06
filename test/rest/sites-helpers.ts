import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** A /v1 client for one account's token: JSON in, the injected response out. */
export function client(app: FastifyInstance, headers: Record<string, string>) {
  return (method: Method, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
    app.inject({ method, url, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload: payload as object }) })
}

/** A problem+json answer with this status and stable code, and nothing of the validator or driver in it. */
export function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; body: string; json: () => unknown },
  status: number,
  code: string,
) {
  expect(res.statusCode, res.body).toBe(status)
  expect(String(res.headers['content-type'])).toContain('application/problem+json')
  const body = res.json() as { code: string; detail: string; status: number }
  expect(body.code, res.body).toBe(code)
  expect(body.status).toBe(status)
  expect(res.body).not.toMatch(/anyOf|instancePath|duplicate key|violates|constraint|at .*\.ts:/)
}
