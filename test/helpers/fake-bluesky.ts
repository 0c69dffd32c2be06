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

/**
 * A Bluesky PDS on loopback speaking the XRPC procedures a post needs, with the checks of the real
 * ones: com.atproto.server.createSession takes {identifier, password} (401 AuthenticationRequired
 * otherwise) and answers {did, handle, accessJwt, refreshJwt}; com.atproto.repo.createRecord and
 * com.atproto.repo.putRecord need that accessJwt as bearer, the session's DID as repo, an
 * app.bsky.feed.post record with text of at most 300 graphemes and createdAt, and a TID as record
 * key (400 InvalidRequest otherwise), and answer {uri, cid}. Record keys are unique per collection
 * as in a real repository: createRecord of a key that exists fails with the real PDS's 500
 * InternalServerError; putRecord of an existing key replaces the record, and of the very same
 * record is a no-op answering the stored uri and cid.
 *
 * `state.dropNextWrites` makes the next writes commit and then lose their answer (the connection
 * is cut), as when a client times out after the server has written.
 */
export async function startFakeBluesky(handle: string, appPassword: string) {
  const did = `did:plc:${randomBytes(12).toString('hex')}`
  const sessions = new Set<string>()
  const records: BlueskyRecord[] = []
  const byKey = new Map<string, { entry: BlueskyRecord; cid: string; json: string }>()
  const state = { dropNextWrites: 0, writes: 0 }
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
      if (req.method === 'POST' && req.url === '/xrpc/com.atproto.server.createSession') {
        if (body['identifier'] !== handle || body['password'] !== appPassword) return answer(401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' })
        const accessJwt = randomBytes(24).toString('base64url')
        sessions.add(accessJwt)
        return answer(200, { did, handle, accessJwt, refreshJwt: randomBytes(24).toString('base64url'), active: true })
      }
      const create = req.url === '/xrpc/com.atproto.repo.createRecord'
      if (req.method === 'POST' && (create || req.url === '/xrpc/com.atproto.repo.putRecord')) {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
        if (!token || !sessions.has(token)) return answer(401, { error: 'AuthenticationRequired', message: 'Authentication Required' })
        const record = body['record'] as BlueskyRecord['record'] | undefined
        const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(record?.text ?? '')].length
        if (body['repo'] !== did || body['collection'] !== 'app.bsky.feed.post' || record?.$type !== 'app.bsky.feed.post' || typeof record.text !== 'string' || graphemes > 300 || Number.isNaN(Date.parse(record.createdAt ?? ''))) {
          return answer(400, { error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record' })
        }
        // createRecord picks a key when none is given; putRecord requires one.
        const rkey = body['rkey'] ?? (create ? randomTid() : undefined)
        if (typeof rkey !== 'string' || !TID.test(rkey)) return answer(400, { error: 'InvalidRequest', message: 'Invalid record key: app.bsky.feed.post takes a TID' })
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
  cleanUpAfter(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, did, records, state }
}
