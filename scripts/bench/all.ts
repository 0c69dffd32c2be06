// Every benchmark in turn, one after another, with the machine named first (CPU, cores, memory,
// PostgreSQL, Node, the load averages before and after): the run the README's benchmark table is
// made from. Each bench's own output follows; at the end, every line that states a target.
// BENCH_ONLY=rest,mcp runs some of them; the other BENCH_* settings reach every bench.
import { spawn } from 'node:child_process'
import { cpus, loadavg, release, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { benchDatabaseAdminUrl } from './lib.ts'

const BENCHES = [
  'foundation',
  'rest',
  'agent',
  'mcp',
  'webhooks',
  'sites',
  'media',
  'token',
  'graphql',
  'audit',
  'stats',
  'drafts',
  'scale',
]
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim())
const chosen = BENCHES.filter((name) => !only || only.includes(name))

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: benchDatabaseAdminUrl })
  await client.connect()
  try {
    return ((await client.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '?').split(' ')[0]!
  } finally {
    await client.end()
  }
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')
console.log(
  `machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${release()}; PostgreSQL ${await postgresVersion()} on loopback; Node ${process.version}`,
)
console.log(`load average before: ${load()}`)

const targets: string[] = []
for (const name of chosen) {
  console.log(`\n=== ${name} (load average ${load()}) ===`)
  const child = spawn(process.execPath, [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk)
    output += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) targets.push(`${name}: exited with ${code}`)
  for (const line of output.split('\n')) if (/target|met\b|OVER|within/.test(line)) targets.push(`${name}: ${line.trim()}`)
}
console.log(`\nload average after: ${load()}`)
console.log('\n=== targets ===')
for (const line of targets) console.log(line)
