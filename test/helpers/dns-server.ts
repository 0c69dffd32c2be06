import { createSocket, type Socket } from 'node:dgram'
import dnsPacket from 'dns-packet'

/**
 * A small authoritative DNS server on loopback UDP, answering TXT questions from a table the test
 * fills (other names: NXDOMAIN), or failing for the names it is told to (SERVFAIL). Point
 * DNS_SERVERS at `address` to use it. `port` 0 takes a free one (scripts/dns-txt.ts names its own).
 */
export interface TestDnsServer {
  address: string
  /** Sets the TXT strings of a name; an empty list removes it. */
  setTxt(name: string, values: string[]): void
  /** Makes questions about a name answer SERVFAIL (true) or be answered from the table again (false). */
  setServfail(name: string, failing: boolean): void
  close(): Promise<void>
}

export async function startDnsServer(port = 0): Promise<TestDnsServer> {
  const records = new Map<string, string[]>()
  const failing = new Set<string>()
  const socket: Socket = createSocket('udp4')
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet
    try {
      query = dnsPacket.decode(message)
    } catch {
      return
    }
    const question = query.questions?.[0]
    const values = question ? records.get(question.name.toLowerCase()) : undefined
    const servfail = question !== undefined && failing.has(question.name.toLowerCase())
    const answers: dnsPacket.Answer[] =
      question?.type === 'TXT' && values && !servfail
        ? values.map((value) => ({ type: 'TXT', name: question.name, ttl: 0, data: value }))
        : []
    const response = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (servfail ? 2 : values ? 0 : 3), // rcode 2: SERVFAIL, 3: NXDOMAIN
      questions: query.questions ?? [],
      answers,
    })
    socket.send(response, peer.port, peer.address)
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    socket.bind(port, '127.0.0.1', resolve)
  })
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt(name, values) {
      if (values.length === 0) records.delete(name.toLowerCase())
      else records.set(name.toLowerCase(), values)
    },
    setServfail(name, on) {
      if (on) failing.add(name.toLowerCase())
      else failing.delete(name.toLowerCase())
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
}
