import { connect, type Socket } from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Parses one HTTP/1.1 response from the front of `text`; undefined while it is incomplete. */
function parseResponse(text: string, head: boolean): { response: RawResponse; rest: string } | undefined {
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = head ? 0 : Number(headers['content-length'] ?? 0)
  if (text.length < end + 4 + length) return undefined
  return {
    response: { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length) },
    rest: text.slice(end + 4 + length),
  }
}

/**
 * A keep-alive HTTP/1.1 connection spoken byte by byte, for requests no HTTP client would send.
 * `send` writes raw bytes and waits for one whole response (HEAD: headers only); `closed` tells
 * whether the server ended the connection, and how (a reset or a clean close).
 */
export async function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  let buffer = ''
  let ended: 'open' | 'closed' | 'reset' = 'open'
  const waiters: Array<() => void> = []
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter()
  }
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => {
    buffer += chunk
    wake()
  })
  socket.on('end', () => {
    if (ended === 'open') ended = 'closed'
    wake()
  })
  socket.on('error', (error: NodeJS.ErrnoException) => {
    ended = error.code === 'ECONNRESET' ? 'reset' : 'closed'
    wake()
  })
  socket.on('close', () => {
    if (ended === 'open') ended = 'closed'
    wake()
  })

  const next = (head: boolean, timeoutMs: number) =>
    new Promise<RawResponse>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no whole response within ${timeoutMs} ms; got ${JSON.stringify(buffer.slice(0, 200))}`)),
        timeoutMs,
      )
      const attempt = () => {
        const parsed = parseResponse(buffer, head)
        if (parsed) {
          clearTimeout(timer)
          buffer = parsed.rest
          resolve(parsed.response)
        } else if (ended !== 'open') {
          clearTimeout(timer)
          reject(new Error(`connection ${ended} before a whole response; got ${JSON.stringify(buffer.slice(0, 200))}`))
        } else waiters.push(attempt)
      }
      attempt()
    })

  return {
    async send(bytes: string | Buffer, options: { head?: boolean; timeoutMs?: number } = {}): Promise<RawResponse> {
      if (ended === 'open') socket.write(bytes)
      return next(options.head ?? false, options.timeoutMs ?? 5000)
    },
    /** Resolves once the server has ended the connection: 'closed' (FIN) or 'reset'. */
    closed(timeoutMs = 5000): Promise<'closed' | 'reset' | 'open'> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(ended), timeoutMs)
        const attempt = () => {
          if (ended !== 'open') {
            clearTimeout(timer)
            resolve(ended)
          } else waiters.push(attempt)
        }
        attempt()
      })
    },
    /** Bytes received after the last whole response (a HEAD answer must leave none). */
    leftover: () => buffer,
    destroy: () => socket.destroy(),
  }
}
