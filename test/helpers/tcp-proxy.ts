import { createServer, connect, type Socket } from 'node:net'

/**
 * A TCP proxy on loopback in front of a real server, whose link the test can cut and restore:
 * cutting closes every open connection and refuses new ones, as a database outage would.
 */
export async function startTcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>()
  let up = true
  const server = createServer((client) => {
    if (!up) {
      client.destroy()
      return
    }
    const upstream = connect(targetPort, targetHost)
    sockets.add(client).add(upstream)
    client.pipe(upstream).pipe(client)
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
    restore() {
      up = true
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
