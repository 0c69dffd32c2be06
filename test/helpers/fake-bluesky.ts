import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cleanUpAfter } from './cleanup.ts'

export interface BlueskyRecord {
  repo: string
  collection: string
  rkey: string
  record: { $type?: string; text?: string; createdAt?: string; facets?: unknown[] }
}

/**
 * A Bluesky PDS on loopback speaking the two XRPC procedures a post needs, with the checks of the
 * real ones: com.atproto.server.createSession takes {identifier, password} (401
 * AuthenticationRequired otherwise) and answers {did, handle, accessJwt, refreshJwt};
 * com.atproto.repo.createRecord needs that accessJwt as bearer, the session's DID as repo, an
 * app.bsky.feed.post record with text of at most 300 graphemes and createdAt (400 InvalidRequest
 * otherwise), and answers {uri, cid}.
 */
export async function startFakeBluesky(handle: string, appPassword: string) {
  const did = `did:plc:${randomBytes(12).toString('hex')}`
  const sessions = new Set<string>()
  const records: BlueskyRecord[] = []
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
      if (req.method === 'POST' && req.url === '/xrpc/com.atproto.repo.createRecord') {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
        if (!token || !sessions.has(token)) return answer(401, { error: 'AuthenticationRequired', message: 'Authentication Required' })
        const record = body['record'] as BlueskyRecord['record'] | undefined
        const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(record?.text ?? '')].length
        if (body['repo'] !== did || body['collection'] !== 'app.bsky.feed.post' || record?.$type !== 'app.bsky.feed.post' || typeof record.text !== 'string' || graphemes > 300 || Number.isNaN(Date.parse(record.createdAt ?? ''))) {
          return answer(400, { error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record' })
        }
        const rkey = `3l${randomBytes(5).toString('hex')}`
        records.push({ repo: did, collection: 'app.bsky.feed.post', rkey, record })
        return answer(200, { uri: `at://${did}/app.bsky.feed.post/${rkey}`, cid: `bafyrei${randomBytes(16).toString('hex')}` })
      }
      answer(404, { error: 'MethodNotImplemented' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanUpAfter(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, did, records }
}
