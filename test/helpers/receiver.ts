import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cleanUpAfter } from './cleanup.ts'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** What the receiver does with one request: answer (`echo`: with the request's own body), or hang until the test ends. */
export type Behaviour = { status: number; headers?: Record<string, string>; body?: string; echo?: boolean } | 'hang'

export interface Receiver {
  url: string
  requests: ReceivedRequest[]
  /** Behaviours used in order, one per request; once used up, every request gets `fallback`. */
  script(...behaviours: Behaviour[]): void
  fallback: Behaviour
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>
  close(): Promise<void>
}

/**
 * A real HTTP receiver on loopback for webhook deliveries: it records every request (headers and
 * raw body, as a verifying receiver needs them) and answers as the test scripts it.
 */
export async function startReceiver(fallback: Behaviour = { status: 200, body: 'ok' }): Promise<Receiver> {
  const requests: ReceivedRequest[] = []
  const queue: Behaviour[] = []
  const hanging = new Set<ServerResponse>()
  const waiters: Array<{ count: number; resolve: () => void }> = []
  const receiver = {} as Receiver
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      })
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
      const behaviour = queue.shift() ?? receiver.fallback
      if (behaviour === 'hang') {
        hanging.add(res)
        return
      }
      const body = Buffer.concat(chunks)
      res.writeHead(behaviour.status, {
        'content-type': behaviour.echo ? String(req.headers['content-type'] ?? 'text/plain') : 'text/plain',
        ...behaviour.headers,
      })
      res.end(behaviour.echo ? body : (behaviour.body ?? ''))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const close = async () => {
    for (const res of hanging) res.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    fallback,
    script: (...behaviours: Behaviour[]) => void queue.push(...behaviours),
    waitFor: (count: number, timeoutMs = 15_000) =>
      new Promise<ReceivedRequest[]>((resolve, reject) => {
        if (requests.length >= count) return resolve(requests)
        const timer = setTimeout(() => reject(new Error(`only ${requests.length} of ${count} requests arrived`)), timeoutMs)
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests)) })
      }),
    close,
  })
  cleanUpAfter(close)
  return receiver
}
