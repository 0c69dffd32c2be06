import { connect } from 'node:net'

/** True when something accepts TCP connections at the URL's host and port within a second. */
export function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 1000 })
    socket.once('connect', () => {
      socket.end()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
  })
}
