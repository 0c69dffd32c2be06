/**
 * One Lighthouse run in its own process (Lighthouse keeps global state and cannot run twice at
 * once in one process). The parent sends a ChildRequest over IPC and receives { ok: true, lhr } or
 * { ok: false, error }. Chrome gets a fresh profile that is removed afterwards, and every request
 * it makes (subresources, redirects, scripts' fetches, WebSockets) passes the address guard.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import lighthouse from 'lighthouse'
import { startBrowserGuard, type BrowserGuard } from '../../../infra/browser-guard.ts'

export interface ChildRequest {
  url: string
  chromePath: string
  /** The audited host and port, reached at the addresses that were checked for it. */
  pinned: { host: string; port: number; addresses: string[] }
  /** OUTBOUND_ALLOW_PRIVATE_NETWORKS: whether the page's other requests may reach private addresses. */
  allowPrivateNetworks: boolean
}

export const CHROME_FLAGS = [
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo', 'agentic-browsing']

/** The unprivileged user Chrome runs as when the service runs as root (`nobody`): Chrome's sandbox refuses root. */
const UNPRIVILEGED = { uid: 65534, gid: 65534 }

/**
 * How Chrome runs the audited (untrusted) page: in its own sandbox wherever the system allows it.
 * The sandbox refuses to run as root, so a service running as root starts Chrome as `nobody`, with
 * the profile handed to that user. Where the sandbox cannot start (no user namespaces, say in some
 * containers) Chrome runs without it, and says so on stderr once per run.
 */
export interface ChromeIdentity {
  sandbox: boolean
  user?: { uid: number; gid: number }
}

export function chromeIdentity(sandbox = true): ChromeIdentity {
  const root = process.getuid?.() === 0
  return { sandbox, ...(root ? { user: UNPRIVILEGED } : {}) }
}

function startChrome(
  chromePath: string,
  profile: string,
  guard: BrowserGuard,
  identity: ChromeIdentity,
): Promise<{ chrome: ChildProcess; port: number }> {
  const args = [
    ...CHROME_FLAGS,
    ...(identity.sandbox ? [] : ['--no-sandbox']),
    ...guard.chromeFlags,
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    'about:blank',
  ]
  const chrome = spawn(chromePath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    ...(identity.user ? { uid: identity.user.uid, gid: identity.user.gid, env: { ...process.env, HOME: profile } } : {}),
  })
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error('Chrome did not start within 20 s')), 20_000)
    chrome.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    chrome.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`Chrome exited early (${code})${/sandbox/i.test(output) ? ': its sandbox could not start' : ''}`))
    })
    chrome.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(output)
      if (match) {
        clearTimeout(timer)
        chrome.removeAllListeners('exit')
        chrome.stderr!.removeAllListeners('data')
        chrome.stderr!.resume()
        resolve({ chrome, port: Number(match[1]) })
      }
    })
  })
}

function stopChrome(chrome: ChildProcess | undefined): void {
  if (!chrome?.pid) return
  try {
    // The browser and its helper processes share one process group.
    process.kill(-chrome.pid, 'SIGKILL')
  } catch {
    chrome.kill('SIGKILL')
  }
}

async function run(request: ChildRequest) {
  const profile = mkdtempSync(join(tmpdir(), 'wps-lh-'))
  let chrome: ChildProcess | undefined
  let guard: BrowserGuard | undefined
  const cleanUp = () => {
    stopChrome(chrome)
    void guard?.close()
    rmSync(profile, { recursive: true, force: true })
  }
  process.once('SIGTERM', () => {
    cleanUp()
    process.exit(1)
  })
  try {
    guard = await startBrowserGuard({ allowPrivateNetworks: request.allowPrivateNetworks, pinned: request.pinned })
    const identity = chromeIdentity()
    if (identity.user) chownSync(profile, identity.user.uid, identity.user.gid)
    const started = await startChrome(request.chromePath, profile, guard, identity).catch((error: Error) => {
      if (!/sandbox could not start/.test(error.message)) throw error
      process.stderr.write('Chrome sandbox unavailable on this system: the audited page runs without it\n')
      return startChrome(request.chromePath, profile, guard!, { ...identity, sandbox: false })
    })
    chrome = started.chrome
    const result = await lighthouse(request.url, {
      port: started.port,
      hostname: '127.0.0.1',
      output: 'json',
      logLevel: 'error',
      onlyCategories: CATEGORIES,
    })
    if (!result) throw new Error('Lighthouse returned no result')
    const { lhr } = result
    const audits: Record<string, { numericValue?: number; score: number | null }> = {}
    for (const [id, audit] of Object.entries(lhr.audits)) audits[id] = { numericValue: audit.numericValue, score: audit.score }
    const categories: Record<string, number | null> = {}
    for (const [id, category] of Object.entries(lhr.categories)) categories[id] = category.score
    return {
      lighthouse_version: lhr.lighthouseVersion,
      final_url: lhr.finalDisplayedUrl,
      runtime_error: lhr.runtimeError?.message,
      categories,
      audits,
    }
  } finally {
    cleanUp()
  }
}

process.once('message', (message: ChildRequest) => {
  run(message).then(
    (lhr) => process.send!({ ok: true, lhr }, () => process.exit(0)),
    (error: unknown) => process.send!({ ok: false, error: error instanceof Error ? error.message : String(error) }, () => process.exit(0)),
  )
})
