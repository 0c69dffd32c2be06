// The sales assistant under load on real PostgreSQL with the built-in responder: session bootstrap,
// then chat turns (each request a new durable turn on one of many sessions), beside a bare Fastify
// hello-world. Target: 1000 turns/s or more and p99 under 50 ms at 32 connections.
// First, in this process, the built-in responder's own CPU per turn beside the previous responder's
// (the one of BENCH_PREVIOUS_REV, read from git), on the same questions: at most 20 µs more.
// BENCH_RESPONDER_ONLY=1 runs that comparison alone.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type autocannon from 'autocannon'
import { load, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'
import { buildKnowledgeBase } from '../../src/agent/knowledge.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import type { TurnInput } from '../../src/agent/responder/types.ts'
import type { Locale } from '../../src/domain/locales.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const sessionCount = Number(process.env.BENCH_SESSIONS ?? 2000)
const questions = [
  'How much does the Pro plan cost?',
  'How do I connect my own domain?',
  'What does the SEO audit check?',
  'Do you offer webhooks?',
  'Can the assistant capture leads?',
  'How is my data protected?',
]

/** The responder this one replaced: the last commit before the knowledge index read visitors' words. */
const previousRev = process.env.BENCH_PREVIOUS_REV ?? '31984b807c4819137252e4ebb2a0902d1a750b42'
const root = fileURLToPath(new URL('../..', import.meta.url))

type Responder = { kb: unknown; plan: (kb: never, input: TurnInput) => { reply: string } }

/**
 * The previous responder as it was at `rev`: its src/agent from git in a temporary tree beside the
 * current src/domain and src/infra (which it imports), and node_modules. It read stems through
 * snowball-stemmers, since replaced by multilingual-stemmer (the same Snowball algorithms): its
 * stemmer is bound to the current package, and stems are cached per word either way.
 */
async function previousResponder(rev: string): Promise<{ responder: Responder; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-previous-'))
  const tar = execFileSync('git', ['-C', root, 'archive', rev, 'src/agent'])
  execFileSync('tar', ['-x', '-C', dir], { input: tar })
  for (const entry of readdirSync(join(root, 'src'))) if (entry !== 'agent') symlinkSync(join(root, 'src', entry), join(dir, 'src', entry))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  const textFile = join(dir, 'src/agent/text.ts')
  const text = readFileSync(textFile, 'utf8')
  if (text.includes("'snowball-stemmers'")) {
    writeFileSync(
      textFile,
      `import * as snowballStemmers from 'multilingual-stemmer'\n${text.replace(
        "createRequire(import.meta.url)('snowball-stemmers')",
        '({ newStemmer: (language: string) => ({ stem: (snowballStemmers as unknown as Record<string, (word: string) => string>)[language]! }) })',
      )}`,
    )
  }
  const knowledge = (await import(join(dir, 'src/agent/knowledge.ts'))) as { buildKnowledgeBase(): unknown }
  const builtin = (await import(join(dir, 'src/agent/responder/builtin.ts'))) as { planTurn: Responder['plan'] }
  return { responder: { kb: knowledge.buildKnowledgeBase(), plan: builtin.planTurn }, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Visitor questions in the three languages: the load run's, and some as visitors type them. */
const responderQuestions: Array<[Locale, string]> = [
  ...questions.map((q): [Locale, string] => ['en', q]),
  ['en', 'can i cancel anytime?'],
  ['en', 'how much do I save paying anually'],
  ['en', 'which plan lets me write through the API?'],
  ['de', 'Was kostet der Pro-Tarif?'],
  ['de', 'bin ich ein jahr lang gebunden'],
  ['de', 'Wann ist der Support erreichbar?'],
  ['fr', "Y a-t-il une offre gratuite ?"],
  ['fr', 'Comment connecter mon propre domaine ?'],
  ['fr', 'Quel temps fera-t-il demain à Paris ?'],
]

function turnInput(locale: Locale, message: string): TurnInput {
  return {
    locale,
    message,
    pagePath: undefined,
    capabilities: { booking: true, booking_url: 'https://example.test/demo', lead: true, handoff: true },
    handoff: 'none',
    persona: undefined,
    siteName: 'Bench',
    history: async () => [],
  }
}

/** CPU (user + system) per turn of a responder over the question list, in microseconds. */
function cpuPerTurn(responder: Responder, rounds: number): number {
  const inputs = responderQuestions.map(([locale, q]) => turnInput(locale, q))
  const start = process.cpuUsage()
  for (let r = 0; r < rounds; r++) for (const input of inputs) responder.plan(responder.kb as never, input)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / (rounds * inputs.length)
}

/** Both responders, warmed, then measured in alternating rounds so a busy moment of the machine hits both alike. */
async function compareResponders(): Promise<string> {
  const current: Responder = { kb: buildKnowledgeBase(), plan: planTurn as Responder['plan'] }
  const { responder: previous, cleanup } = await previousResponder(previousRev)
  try {
    for (const r of [current, previous]) cpuPerTurn(r, 200)
    const samples = { current: [] as number[], previous: [] as number[] }
    for (let i = 0; i < 15; i++) {
      samples.previous.push(cpuPerTurn(previous, 100))
      samples.current.push(cpuPerTurn(current, 100))
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!
    const now = median(samples.current)
    const before = median(samples.previous)
    const delta = now - before
    return `responder CPU per turn (in process, median of 15 rounds of ${responderQuestions.length} questions): ${now.toFixed(1)} µs, previous responder (${previousRev.slice(0, 7)}) ${before.toFixed(1)} µs, ${delta >= 0 ? '+' : ''}${delta.toFixed(1)} µs (target at most +20 µs: ${delta <= 20 ? 'met' : 'not met'})`
  } finally {
    cleanup()
  }
}

const responderLine = await compareResponders()
console.log(responderLine)
if (process.env.BENCH_RESPONDER_ONLY === '1') process.exit(0)

const baseline = await startBaseline()
const service = await startService()
try {
  const bootstrapBody = JSON.stringify({ url: '/en/pricing' })
  const json = { 'content-type': 'application/json' }

  // Sessions for the turn run, opened over HTTP like a widget would.
  const sessions: Array<{ session_id: string; session_token: string }> = []
  for (let i = 0; i < sessionCount; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, sessionCount - i) }, () =>
        fetch(`${service.url}/api/agent/bootstrap`, { method: 'POST', headers: json, body: bootstrapBody })
          .then((r) => r.json() as Promise<{ session_id: string; session_token: string }>)
          .then(({ session_id, session_token }) => ({ session_id, session_token })),
      ),
    )
    sessions.push(...batch)
  }

  let n = 0
  const prefix = randomBytes(4).toString('hex')
  const turnRequest: autocannon.Request = {
    method: 'POST',
    path: '/api/agent/chat',
    headers: json,
    setupRequest: (request) => {
      n += 1
      const session = sessions[n % sessions.length]!
      return { ...request, body: JSON.stringify({ ...session, turn_id: `b${prefix}${n.toString(36).padStart(8, '0')}`, message: questions[n % questions.length] }) }
    },
  }

  // One turn by hand first: a benchmark of refusals would measure nothing.
  const probe = await fetch(`${service.url}/api/agent/chat`, { method: 'POST', headers: json, body: JSON.stringify({ ...sessions[0], turn_id: `probe${prefix}`, message: questions[0] }) })
  if (probe.status !== 200) throw new Error(`a chat turn answered ${probe.status}: ${await probe.text()}`)

  await warm({ url: `${baseline.url}/`, connections })
  const bare = await load({ url: `${baseline.url}/`, connections, pid: baseline.pid })

  await warm({ url: service.url, connections, requests: [turnRequest] })
  const turns: LoadResult = await load({ url: service.url, connections, requests: [turnRequest], pid: service.pid })
  const bootstrap = await load({ url: `${service.url}/api/agent/bootstrap`, method: 'POST', headers: json, body: bootstrapBody, connections, pid: service.pid })

  report(`sales assistant (${connections} connections, loopback, PostgreSQL, built-in responder)`, bare, [
    { name: 'POST /api/agent/chat (new turns)', result: turns, unit: 'turns/s' },
    { name: 'POST /api/agent/bootstrap (create)', result: bootstrap },
  ])
  const ok = turns.requestsPerSecond >= 1000 && turns.p99 < 50
  console.log(`\nturns: ${turns.requestsPerSecond.toFixed(0)}/s, p50 ${turns.p50} ms, p99 ${turns.p99} ms (target ≥ 1000/s, p99 < 50 ms: ${ok ? 'met' : 'not met'})`)
  if (turns.cpuPerRequest) {
    // CPU per turn does not depend on how busy the rest of the machine is: the capacity of one core.
    console.log(`server CPU per turn: ${turns.cpuPerRequest.toFixed(0)} µs, i.e. about ${(1_000_000 / turns.cpuPerRequest).toFixed(0)} turns/s per core of the service process`)
    // Beside the hello-world's CPU per request of this same run, so runs on busier machines compare.
    if (bare.cpuPerRequest) console.log(`server CPU per turn vs hello-world: ${turns.cpuPerRequest.toFixed(0)} µs / ${bare.cpuPerRequest.toFixed(1)} µs per request = ${(turns.cpuPerRequest / bare.cpuPerRequest).toFixed(1)}×`)
  }
  console.log(responderLine)
} finally {
  await service.stop()
  await baseline.stop()
}
