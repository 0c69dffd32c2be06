import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'

// A client_id holding U+0000 reached PostgreSQL from /oauth/authorize and answered 500: every room's
// validator now refuses what the database cannot store, before a handler runs.
const { app } = await buildTestApp()

describe('values the database cannot store, outside /v1', () => {
  it('answers the authorization page 400 for a client_id with U+0000, not 500', async () => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'cli_\u0000x',
      redirect_uri: 'https://app.example/cb',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    })
    const res = await app.inject({ method: 'GET', url: `/oauth/authorize?${query}` })
    expect(res.statusCode).toBe(400)
    expect(res.body).not.toMatch(/0x00|invalid byte sequence|stack/i)
  })

  it('refuses U+0000 and lone surrogates in a token request and a public check with their own error shapes', async () => {
    const token = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'refresh_token', refresh_token: 'rt_\u0000', client_id: 'cli_x' },
    })
    expect(token.statusCode).toBe(400)
    expect(token.json()).toMatchObject({ error: 'invalid_request' })
    const audit = await app.inject({ method: 'GET', url: '/api/seo-check/audit?d=example.com%ED%A0%80' })
    expect(audit.statusCode).toBe(400)
    expect(audit.headers['content-type']).toMatch(/^application\/problem\+json/)
  })
})
