// The sales assistant under load on real PostgreSQL with the built-in responder: chat turns (each
// request a new durable turn on one of many sessions) beside a bare Fastify + pg server doing one
// `insert … returning` of a row the size of a turn per request and sending the same answer, in the
// same rounds (BENCH_ROUNDS, medians). Targets: CPU per turn at most 4x the reference's, p99 under
// 30 ms at 32 connections. Session bootstrap is measured once after them.
// First, in this process, the built-in responder's own CPU per turn beside the previous responder's
// (the one of BENCH_PREVIOUS_REV, read from git), on the same questions: at most 50 µs more.
// BENCH_RESPONDER_ONLY=1 runs that comparison alone.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type autocannon from 'autocannon'
import {
  compared,
  load,
  measureInTurn,
  median,
  middle,
  repeatableHeaders,
  report,
  startBaseline,
  startSameWork,
  startService,
  type Running,
} from './lib.ts'
import { buildKnowledgeBase } from '../../src/agent/knowledge.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import type { TurnInput } from '../../src/agent/responder/types.ts'
import type { Locale } from '../../src/domain/locales.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const sessionCount = Number(process.env.BENCH_SESSIONS ?? 2000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const questions = [
  'How much does the Pro plan cost?',
  'How do I connect my own domain?',
  'What does the SEO audit check?',
  'Do you offer webhooks?',
  'Can the assistant capture leads?',
  'How is my data protected?',
]

/** The responder this one replaced: the last commit before questions were read for their intent (compound, recommendation, person). */
const previousRev = process.env.BENCH_PREVIOUS_REV ?? '63f91529d86748d6505e2912402f4e8625c5ce08'
const root = fileURLToPath(new URL('../..', import.meta.url))

type Responder = { kb: unknown; plan: (kb: never, input: TurnInput) => { reply: string } }

/**
 * The previous responder as it was at `rev`: the whole src tree of that commit from git (its
 * src/agent imports src/domain and src/infra as they were laid out then) in a temporary folder
 * beside node_modules. It read stems through snowball-stemmers, since replaced by
 * multilingual-stemmer (the same Snowball algorithms): its stemmer is bound to the current
 * package, and stems are cached per word either way.
 */
async function previousResponder(rev: string): Promise<{ responder: Responder; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-previous-'))
  const tar = execFileSync('git', ['-C', root, 'archive', rev, 'src'], { maxBuffer: 256 * 1024 * 1024 })
  execFileSync('tar', ['-x', '-C', dir], { input: tar })
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
  return {
    responder: { kb: knowledge.buildKnowledgeBase(), plan: builtin.planTurn },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
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
  ['fr', 'Y a-t-il une offre gratuite ?'],
  ['fr', 'Comment connecter mon propre domaine ?'],
  ['fr', 'Quel temps fera-t-il demain à Paris ?'],
  // As visitors write them: a recommendation from needs, two questions in one, a request for a person.
  ['en', "we're a bakery, one website, but 3 of us should edit it. which plan?"],
  ['en', 'How much is Lite and can I use my own domain with it?'],
  ['de', 'kannst du mich mit jemandem verbinden'],
  ['fr', 'vous gardez les stats combien de temps avec lite et vous utilisez des cookies ?'],
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
    return `responder CPU per turn (in process, median of 15 rounds of ${responderQuestions.length} questions): ${now.toFixed(1)} µs, previous responder (${previousRev.slice(0, 7)}) ${before.toFixed(1)} µs, ${delta >= 0 ? '+' : ''}${delta.toFixed(1)} µs (target at most +50 µs: ${delta <= 50 ? 'met' : 'not met'})`
  } finally {
    cleanup()
  }
}

const responderLine = await compareResponders()
console.log(responderLine)
if (process.env.BENCH_RESPONDER_ONLY === '1') process.exit(0)

const baseline = await startBaseline()
const service = await startService()
let reference: Running | undefined
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
  const turnRequest = (path: string): autocannon.Request => ({
    method: 'POST',
    path,
    headers: json,
    setupRequest: (request) => {
      n += 1
      const session = sessions[n % sessions.length]!
      return {
        ...request,
        body: JSON.stringify({
          ...session,
          turn_id: `b${prefix}${n.toString(36).padStart(8, '0')}`,
          message: questions[n % questions.length],
        }),
      }
    },
  })

  // One turn by hand first: a benchmark of refusals would measure nothing.
  const probe = await fetch(`${service.url}/api/agent/chat`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ ...sessions[0], turn_id: `probe${prefix}`, message: questions[0] }),
  })
  const answer = await probe.text()
  if (probe.status !== 200) throw new Error(`a chat turn answered ${probe.status}: ${answer}`)
  // The reference stores a row holding what a turn stores (the answer and both texts) and sends the same answer and headers.
  reference = await startSameWork('turn', service.databaseUrl, { headers: repeatableHeaders(probe.headers), response: answer })

  const results = await measureInTurn(
    {
      hello: { url: `${baseline.url}/`, pid: baseline.pid, connections },
      reference: { url: reference.url, pid: reference.pid, connections, requests: [turnRequest('/')] },
      turns: { url: service.url, pid: service.pid, connections, requests: [turnRequest('/api/agent/chat')] },
    },
    rounds,
  )
  const bootstrap = await load({
    url: `${service.url}/api/agent/bootstrap`,
    method: 'POST',
    headers: json,
    body: bootstrapBody,
    connections,
    pid: service.pid,
  })

  const turns = median(results.turns)
  report(
    `sales assistant (${connections} connections, loopback, PostgreSQL, built-in responder, median of ${rounds} rounds)`,
    median(results.hello),
    [
      { name: 'bare Fastify + pg, one insert … returning', result: median(results.reference), unit: 'turns/s' },
      { name: 'POST /api/agent/chat (new turns)', result: turns, unit: 'turns/s' },
      { name: 'POST /api/agent/bootstrap (create)', result: bootstrap },
    ],
  )
  console.log('')
  // Target: CPU per turn at most 4x the reference's, i.e. at least 0.25x by CPU.
  console.log(compared('chat turn', results.turns, results.reference, { by: 'cpu', atLeast: 0.25, p99Below: 30 }))
  const cpu = middle(results.turns.map((r) => r.cpuPerRequest ?? NaN))
  const referenceCpu = middle(results.reference.map((r) => r.cpuPerRequest ?? NaN))
  console.log(
    `server CPU per turn ${cpu.toFixed(0)} µs = ${(cpu / referenceCpu).toFixed(2)}x the reference's ${referenceCpu.toFixed(0)} µs (target at most 4x), about ${(1_000_000 / cpu).toFixed(0)} turns/s per core; ${turns.requestsPerSecond.toFixed(0)} turns/s, p50 ${turns.p50} ms, p99 ${turns.p99} ms (target < 30 ms)`,
  )
  console.log(responderLine)
} finally {
  await reference?.stop()
  await service.stop()
  await baseline.stop()
}
