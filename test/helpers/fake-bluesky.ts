import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cleanUpAfter } from './cleanup.ts'

export interface BlueskyRecord {
  repo: string
  collection: string
  rkey: string
  record: { $type?: string; text?: string; createdAt?: string; langs?: string[]; facets?: unknown[] }
}

/** atproto's TID syntax: 13 sortable base32 characters, the top bit zero. */
const TID = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/

function randomTid(): string {
  const alphabet = '234567abcdefghijklmnopqrstuvwxyz'
  return [...randomBytes(13)].map((b, i) => alphabet[i === 0 ? b % 16 : b % 32]).join('')
}

/** A JWT as the PDS issues them (HS256, `scope`, `sub`, `iat`, `exp`), signed with a key nobody checks here. */
function jwt(scope: string, did: string, ttlSeconds: number): { token: string; exp: number } {
  const iat = Math.floor(Date.now() / 1000)
  const exp = iat + ttlSeconds
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return {
    token: `${part({ typ: scope === 'com.atproto.refresh' ? 'refresh+jwt' : 'at+jwt', alg: 'HS256' })}.${part({ scope, sub: did, aud: 'did:web:pds.test', iat, exp, jti: randomBytes(12).toString('base64url') })}.${randomBytes(32).toString('base64url')}`,
    exp,
  }
}

/**
 * A Bluesky PDS on loopback speaking the XRPC procedures a post needs, with the checks and answers
 * of the real ones:
 * - com.atproto.server.createSession takes {identifier, password} (401 AuthenticationRequired
 *   otherwise) and answers {did, handle, accessJwt, refreshJwt, active}; like bsky.social it is
 *   rate-limited per handle (`state.createSessionLimit` calls, then 429 RateLimitExceeded);
 * - com.atproto.server.refreshSession takes the refreshJwt as bearer and no body, and answers a
 *   new {did, handle, accessJwt, refreshJwt, active}; the refresh JWT it took is spent (400
 *   ExpiredToken "Token has been revoked" when used again), an expired one is 400 ExpiredToken,
 *   an unknown one 400 InvalidToken;
 * - com.atproto.repo.createRecord and com.atproto.repo.putRecord need the accessJwt as bearer (none:
 *   401 AuthMissing; expired: 400 ExpiredToken "Token has expired"; unknown: 400 InvalidToken), the
 *   session's DID as repo, an app.bsky.feed.post record with text of at most 300 graphemes and
 *   createdAt, and a TID as record key (400 InvalidRequest otherwise), and answer {uri, cid}.
 * Access JWTs live `state.accessTtlSeconds` (2 hours, as on bsky.social); `expireAccessTokens()`
 * and `expireRefreshTokens()` make the ones issued so far expire now (their `exp` claims stay as
 * issued, as when the client's clock runs behind). `state.createSessions`, `state.refreshSessions`
 * and `state.refusedWrites` count the calls. Record keys are unique per collection as in a real
 * repository: createRecord of a key that exists fails with the real PDS's 500
 * InternalServerError; putRecord of an existing key replaces the record, and of the very same
 * record is a no-op answering the stored uri and cid.
 *
 * `state.dropNextWrites` makes the next writes commit and then lose their answer (the connection
 * is cut), as when a client times out after the server has written.
 */
export async function startFakeBluesky(handle: string, appPassword: string) {
  const did = `did:plc:${randomBytes(12).toString('hex')}`
  /** Access and refresh JWTs issued, with when the server takes them to expire; spent refresh JWTs are removed. */
  const accessTokens = new Map<string, number>()
  const refreshTokens = new Map<string, number>()
  const spentRefreshTokens = new Set<string>()
  const records: BlueskyRecord[] = []
  const byKey = new Map<string, { entry: BlueskyRecord; cid: string; json: string }>()
  const state = {
    dropNextWrites: 0,
    writes: 0,
    accessTtlSeconds: 7200,
    createSessionLimit: 30,
    createSessions: 0,
    refreshSessions: 0,
    refusedWrites: 0,
  }
  const now = () => Date.now() / 1000
  const newSession = () => {
    const access = jwt('com.atproto.appPass', did, state.accessTtlSeconds)
    const refresh = jwt('com.atproto.refresh', did, 90 * 86_400)
    accessTokens.set(access.token, access.exp)
    refreshTokens.set(refresh.token, refresh.exp)
    return { did, handle, accessJwt: access.token, refreshJwt: refresh.token, active: true }
  }
  const expireAll = (tokens: Map<string, number>) => () => {
    for (const token of tokens.keys()) tokens.set(token, now() - 1)
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
        res.end(JSON.stringify(body))
      }
      let body: Record<string, any>
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') ?? {}
      } catch {
        return answer(400, { error: 'InvalidRequest', message: 'Invalid JSON' })
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
      if (req.method === 'POST' && req.url === '/xrpc/com.atproto.server.createSession') {
        if (state.createSessions >= state.createSessionLimit)
          return answer(429, { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' })
        state.createSessions++
        if (body['identifier'] !== handle || body['password'] !== appPassword)
          return answer(401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' })
        return answer(200, newSession())
      }
      if (req.method === 'POST' && req.url === '/xrpc/com.atproto.server.refreshSession') {
        state.refreshSessions++
        if (!bearer) return answer(401, { error: 'AuthMissing', message: 'Authentication Required' })
        if (spentRefreshTokens.has(bearer)) return answer(400, { error: 'ExpiredToken', message: 'Token has been revoked' })
        const exp = refreshTokens.get(bearer)
        if (exp === undefined) return answer(400, { error: 'InvalidToken', message: 'Token could not be verified' })
        if (exp <= now()) return answer(400, { error: 'ExpiredToken', message: 'Token has expired' })
        refreshTokens.delete(bearer)
        spentRefreshTokens.add(bearer)
        return answer(200, newSession())
      }
      const create = req.url === '/xrpc/com.atproto.repo.createRecord'
      if (req.method === 'POST' && (create || req.url === '/xrpc/com.atproto.repo.putRecord')) {
        if (!bearer) return answer(401, { error: 'AuthMissing', message: 'Authentication Required' })
        const exp = accessTokens.get(bearer)
        if (exp === undefined || exp <= now()) state.refusedWrites++
        if (exp === undefined) return answer(400, { error: 'InvalidToken', message: 'Token could not be verified' })
        if (exp <= now()) return answer(400, { error: 'ExpiredToken', message: 'Token has expired' })
        const record = body['record'] as BlueskyRecord['record'] | undefined
        const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(record?.text ?? '')].length
        if (
          body['repo'] !== did ||
          body['collection'] !== 'app.bsky.feed.post' ||
          record?.$type !== 'app.bsky.feed.post' ||
          typeof record.text !== 'string' ||
          graphemes > 300 ||
          Number.isNaN(Date.parse(record.createdAt ?? ''))
        ) {
          return answer(400, { error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record' })
        }
        // createRecord picks a key when none is given; putRecord requires one.
        const rkey = body['rkey'] ?? (create ? randomTid() : undefined)
        if (typeof rkey !== 'string' || !TID.test(rkey))
          return answer(400, { error: 'InvalidRequest', message: 'Invalid record key: app.bsky.feed.post takes a TID' })
        const json = JSON.stringify(record)
        const existing = byKey.get(rkey)
        const uri = `at://${did}/app.bsky.feed.post/${rkey}`
        if (existing && create) return answer(500, { error: 'InternalServerError', message: 'Internal Server Error' })
        if (existing && existing.json === json) return answer(200, { uri, cid: existing.cid })
        state.writes++
        const cid = `bafyrei${randomBytes(16).toString('hex')}`
        if (existing) {
          existing.entry.record = record
          byKey.set(rkey, { entry: existing.entry, cid, json })
        } else {
          const entry = { repo: did, collection: 'app.bsky.feed.post', rkey, record }
          records.push(entry)
          byKey.set(rkey, { entry, cid, json })
        }
        if (state.dropNextWrites > 0) {
          state.dropNextWrites--
          return res.socket?.destroy()
        }
        return answer(200, { uri, cid })
      }
      answer(404, { error: 'MethodNotImplemented' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanUpAfter(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    did,
    records,
    state,
    expireAccessTokens: expireAll(accessTokens),
    expireRefreshTokens: expireAll(refreshTokens),
  }
}
