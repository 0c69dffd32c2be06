import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cleanUpAfter } from './cleanup.ts'

export interface MastodonStatus {
  id: string
  status: string
  visibility: string
  idempotencyKey: string | undefined
}

/**
 * A Mastodon instance on loopback that checks what the real POST /api/v1/statuses requires: a
 * bearer token of the account (401 otherwise), a JSON body with a non-empty `status` within the
 * instance's 500 characters as Mastodon counts them (graphemes, every link as 23, a remote mention
 * as its local part; 422 otherwise). It honours Idempotency-Key like the real server and answers a
 * Status with its public `url`. `failNext` makes the next calls answer 503.
 */
export async function startFakeMastodon(accessToken: string) {
  const statuses: MastodonStatus[] = []
  const byKey = new Map<string, MastodonStatus>()
  const state = { failNext: 0, requests: 0 }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      state.requests++
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
        res.end(JSON.stringify(body))
      }
      if (req.method !== 'POST' || req.url !== '/api/v1/statuses') return answer(404, { error: 'Record not found' })
      if (state.failNext > 0) {
        state.failNext--
        return answer(503, { error: 'Service unavailable' })
      }
      if (req.headers.authorization !== `Bearer ${accessToken}`) return answer(401, { error: 'The access token is invalid' })
      if (!String(req.headers['content-type']).startsWith('application/json'))
        return answer(422, { error: "Validation failed: Text can't be blank" })
      let body: { status?: unknown; visibility?: unknown }
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        return answer(400, { error: 'Invalid JSON' })
      }
      if (typeof body.status !== 'string' || body.status.trim() === '')
        return answer(422, { error: "Validation failed: Text can't be blank" })
      // Mastodon counts graphemes, every link as 23 of them and a remote mention as its local part.
      const countable = body.status.replace(/https?:\/\/\S+/g, 'x'.repeat(23)).replace(/@(\w+)@[\w.-]*\w/g, '@$1')
      const counted = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(countable)].length
      if (counted > 500) return answer(422, { error: 'Validation failed: Text character limit of 500 exceeded' })
      const key = req.headers['idempotency-key'] as string | undefined
      const existing = key ? byKey.get(key) : undefined
      const status = existing ?? {
        id: String(110_000_000 + statuses.length),
        status: body.status,
        visibility: String(body.visibility ?? 'public'),
        idempotencyKey: key,
      }
      if (!existing) {
        statuses.push(status)
        if (key) byKey.set(key, status)
      }
      answer(200, {
        id: status.id,
        url: `${origin}/@owner/${status.id}`,
        uri: `${origin}/users/owner/statuses/${status.id}`,
        content: `<p>${status.status}</p>`,
        visibility: status.visibility,
        created_at: new Date().toISOString(),
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  cleanUpAfter(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: origin, statuses, state }
}
