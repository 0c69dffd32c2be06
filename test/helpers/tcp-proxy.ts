import { createServer, connect, type Socket } from 'node:net'

/**
 * A TCP proxy on loopback in front of a real server, whose link the test can break and restore.
 * `cut()` closes every open connection and refuses new ones, as a server that went down would.
 * `drop()` is a network that stops carrying packets: connections stay open, nothing reaches the
 * other side and nothing comes back; new ones are accepted and hang. `restore()` ends either,
 * and what the dropped connections sent meanwhile arrives, as TCP retransmission would bring it.
 */
export async function startTcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>()
  let up = true
  let dropping = false
  // One direction: a chunk read is written on at once; reading stops while the link drops packets.
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (!to.write(chunk)) from.pause()
    })
    to.on('drain', () => {
      if (!dropping) from.resume()
    })
  }
  const server = createServer((client) => {
    if (!up) {
      client.destroy()
      return
    }
    const upstream = connect(targetPort, targetHost)
    sockets.add(client).add(upstream)
    forward(client, upstream)
    forward(upstream, client)
    if (dropping) {
      client.pause()
      upstream.pause()
    }
    const close = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', close).on('close', close)
    upstream.on('error', close).on('close', close)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    cut() {
      up = false
      for (const socket of sockets) socket.destroy()
      sockets.clear()
    },
    drop() {
      dropping = true
      for (const socket of sockets) socket.pause()
    },
    restore() {
      up = true
      dropping = false
      for (const socket of sockets) socket.resume()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
