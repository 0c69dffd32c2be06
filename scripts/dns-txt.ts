// A DNS server on 127.0.0.1 answering TXT questions from a file, for trying domain verification on
// one machine: `npx node scripts/dns-txt.ts PORT FILE`, then start the service with
// DNS_SERVERS=127.0.0.1:PORT. Each line of FILE is `NAME VALUE`; the file is read again whenever it
// changes, so records can be added while both run. Development only (it is the test suite's server).
import { readFileSync, watchFile } from 'node:fs'
import { startDnsServer } from '../test/helpers/dns-server.ts'

const [port, file] = process.argv.slice(2)
if (!port || !/^\d+$/.test(port) || !file) {
  console.error('Usage: node scripts/dns-txt.ts PORT FILE   (each line of FILE: NAME VALUE)')
  process.exit(64)
}

const server = await startDnsServer(Number(port))
let served = new Map<string, string[]>()

function load(): void {
  let text = ''
  try {
    text = readFileSync(file!, 'utf8')
  } catch {
    // No file yet: no records.
  }
  const next = new Map<string, string[]>()
  for (const line of text.split('\n')) {
    const [name, ...value] = line.trim().split(/\s+/)
    if (name && value.length > 0) next.set(name, [...(next.get(name) ?? []), value.join(' ')])
  }
  for (const name of served.keys()) if (!next.has(name)) server.setTxt(name, [])
  for (const [name, values] of next) server.setTxt(name, values)
  served = next
}

load()
watchFile(file, { interval: 200 }, load)
console.log(`answering TXT questions on ${server.address} from ${file}`)
