import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cleanUpAfter } from './helpers/cleanup.ts'
import { freshDatabaseUrl, migratedDataDir, onPostgres } from './helpers/database.ts'
import { baseEnv } from './helpers/process.ts'

// The README's walkthroughs run here as a newcomer would paste them: bash, curl and jq against a
// service started by their own `npm start`, on this project's database kind.
const root = fileURLToPath(new URL('..', import.meta.url))
const readme = readFileSync(join(root, 'README.md'), 'utf8')

const missing = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version']).error)
if (missing.length > 0 && process.env.CI) throw new Error(`CI needs ${missing.join(', ')} for the README walkthroughs`)
if (missing.length > 0) console.warn(`README walkthroughs skipped: ${missing.join(', ')} not found`)

/** The `sh` blocks of the README section under `heading` (up to the next heading of its level or above), joined in order. */
function sectionScript(heading: string): string {
  const level = heading.indexOf(' ')
  const lines = readme.split('\n')
  const start = lines.indexOf(heading)
  expect(start, `README has no section "${heading}"`).toBeGreaterThanOrEqual(0)
  const blocks: string[] = []
  let block: string[] | undefined
  for (const line of lines.slice(start + 1)) {
    if (block) {
      if (line === '```') {
        blocks.push(block.join('\n'))
        block = undefined
      } else block.push(line)
    } else if (line === '```sh') block = []
    else if (/^#+ /.test(line) && line.indexOf(' ') <= level) break
  }
  return blocks.join('\n')
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

/**
 * Runs a walkthrough with the service's port, the helpers' ports and /tmp put elsewhere (every
 * replaced text must be there), stopping at the first failing command.
 */
async function runWalkthrough(script: string, replacements: Array<[string, string]>) {
  const dir = mkdtempSync(join(tmpdir(), 'wps-walkthrough-'))
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }))
  const port = await freePort()
  let text = script
  const all: Array<[string, string]> = [['localhost:3000', `localhost:${port}`], ['/tmp/wps-', `${dir}/wps-`], ...replacements]
  for (const [from, to] of all) {
    expect(text, `the walkthrough names ${from}`).toContain(from)
    text = text.replaceAll(from, to)
  }
  const env = {
    ...baseEnv(),
    PORT: String(port),
    // The service starts on an already migrated database, as the second `npm start` would: migrating from
    // nothing is what the suite's template does on both drivers, and took about a quarter of the walkthroughs' time.
    // Its data key is the one the service generates into DATA_DIR, so it starts without the template's signing key.
    ...(onPostgres
      ? { DATABASE_URL: await freshDatabaseUrl({ keyless: true }), DATA_DIR: join(dir, 'data') }
      : { DATA_DIR: await migratedDataDir('wps-walkthrough-', { keyless: true }) }),
  }
  const child = spawn('bash', ['-c', `set -euo pipefail\n${text}`], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  // Whatever the walkthrough left running (it shares the shell's process group) goes with it.
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  cleanUpAfter(killGroup)
  const [code] = (await once(child, 'exit')) as [number | null]
  const stillServing = await fetch(`http://127.0.0.1:${port}/api/ready`).then(
    () => true,
    () => false,
  )
  killGroup()
  const log = () =>
    `exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr.slice(-4000)}\n--- server log\n${readFileSync(`${dir}/wps-server.log`, 'utf8').slice(-4000)}`
  return { code, stdout, stillServing, log }
}

describe.skipIf(missing.length > 0)('the README walkthroughs', () => {
  it('REST: token, site, page, blocks, rebuild, preview, a domain verified locally, a lead, the audit log and a webhook', async () => {
    const [dns, receiver] = [await freePort(), await freePort()]
    const run = await runWalkthrough(sectionScript('### REST walkthrough'), [
      ['5300', String(dns)],
      ['4555', String(receiver)],
    ])
    expect(run.code, run.log()).toBe(0)
    const out = run.stdout
    expect(out).toContain('{"status":"live","preview_url":')
    expect(out.match(/<h1>Fresh bread<\/h1>/g), run.log()).toHaveLength(2)
    expect(out).toMatch(
      /\{"status":"failed","failure_reason":\{"code":"no_record","detail":"No TXT record was found at _wps-challenge\.bakery\.example"\}\}/,
    )
    expect(out).toContain('{"status":"active","failure_reason":null}')
    expect(out).toContain('{"email":"vera@example.org","name":"Vera","source":"contact_form"}')
    expect(out).toContain('{"operation":"leads.list","method":"GET","path":"/v1/leads","status":200}')
    expect(out).toMatch(/evt_\S+ \{"type":"webhook\.test"/)
    expect(run.stillServing, 'the walkthrough stops the service at its end').toBe(false)
  }, 240_000)

  it('MCP: registration, the claim as requests, the token, and a site built and published through tools', async () => {
    const run = await runWalkthrough(sectionScript('#### MCP walkthrough'), [])
    expect(run.code, run.log()).toBe(0)
    expect(run.stdout).toContain('<h1>Agent connected</h1>')
    expect(run.stdout).toMatch(/\{"id":"blk_[^"]+","type":"faq","position":1\}/)
    expect(run.stdout).toMatch(/\{"build":"queued","preview_url":"http:\/\/localhost:\d+\/s\/site_[^"]+\/"\}/)
    expect(run.stdout).toContain('<h1>Fresh bread</h1>')
    expect(run.stillServing, 'the walkthrough stops the service at its end').toBe(false)
  }, 240_000)
})
