import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { App } from '../../src/app.ts'
import { contractErrors } from './contract.ts'

export interface Session {
  session_id: string
  session_token: string
  locale: string
  lead_consent: { digest: string; version: string; locale: string } | null
  [key: string]: unknown
}

let addressCounter = 0
/** A fresh client address per call, so the per-address limit does not couple unrelated tests. */
export function freshIp(): string {
  addressCounter += 1
  return `198.51.${Math.floor(addressCounter / 250) % 250}.${(addressCounter % 250) + 1}`
}

export function turnId(): string {
  return `t_${randomBytes(9).toString('base64url')}`
}

export async function bootstrap(app: App, body: Record<string, unknown> = {}, remoteAddress = freshIp()): Promise<Session> {
  const res = await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: body, remoteAddress })
  expect(res.statusCode, res.body).toBe(200)
  const json = res.json() as Session
  expect(contractErrors('bootstrap', json)).toEqual([])
  return json
}

export function chat(app: App, session: Session, message: string, extra: Record<string, unknown> = {}, remoteAddress = freshIp()) {
  return app.inject({
    method: 'POST',
    url: '/api/agent/chat',
    payload: { session_id: session.session_id, session_token: session.session_token, turn_id: turnId(), message, ...extra },
    remoteAddress,
  })
}

export function event(app: App, session: Session, type: string, payload?: Record<string, unknown>, remoteAddress = freshIp()) {
  return app.inject({
    method: 'POST',
    url: '/api/agent/event',
    payload: { session_id: session.session_id, session_token: session.session_token, type, ...(payload ? { payload } : {}) },
    remoteAddress,
  })
}

/** Asserts an AgentError body (and nothing else) with the given status and code. */
export function expectAgentError(
  res: { statusCode: number; body: string; headers: Record<string, unknown>; json: () => unknown },
  status: number,
  error?: string,
) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  const body = res.json()
  expect(contractErrors('error', body), res.body).toEqual([])
  if (error) expect((body as { error: string }).error).toBe(error)
  expect(res.body).not.toMatch(/at .*\.ts:\d+|stack/i)
}
