// jwt-bearer token issuance (POST /oauth/token, RFC 7523) on real PostgreSQL, beside jose's raw
// RS256 signing measured in the same rounds, and the bare Fastify hello-world.
// Target: by CPU, a token costs at most 1/0.85 of a raw signature (85 % efficiency).
import { SignJWT, generateKeyPair } from 'jose'
import { load, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const seconds = Number(process.env.BENCH_SECONDS ?? 10)

interface RawRate {
  perSecond: number
  /** CPU time of this process per signature (all threads), in microseconds. */
  cpuPerSignature: number
}

/** Signs access-token-shaped JWTs with a 2048-bit RSA key for `seconds`, `concurrency` at a time. */
async function rawSigningRate(concurrency: number, durationSeconds: number): Promise<RawRate> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 })
  const sign = () =>
    new SignJWT({ client_id: 'reg_bench', scope: 'mcp:read' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'bench' })
      .setIssuer('http://127.0.0.1')
      .setSubject('reg_bench')
      .setAudience('http://127.0.0.1/mcp')
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti(crypto.randomUUID())
      .sign(privateKey)
  let count = 0
  const deadline = Date.now() + durationSeconds * 1000
  const started = Date.now()
  const cpuBefore = process.cpuUsage()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        await sign()
        count++
      }
    }),
  )
  const cpu = process.cpuUsage(cpuBefore)
  return { perSecond: count / ((Date.now() - started) / 1000), cpuPerSignature: (cpu.user + cpu.system) / count }
}

const asResult = (rate: RawRate): LoadResult => ({
  requestsPerSecond: rate.perSecond,
  p50: 0,
  p99: 0,
  non2xx: 0,
  errors: 0,
  total: Math.round(rate.perSecond * seconds),
  seconds,
  cpuPerRequest: rate.cpuPerSignature,
})

const baseline = await startBaseline()
const service = await startService()
try {
  const registration = (await (
    await fetch(`${service.url}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"anonymous"}',
    })
  ).json()) as { identity_assertion: string }
  const request = {
    url: `${service.url}/oauth/token`,
    pid: service.pid,
    method: 'POST',
    connections,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: registration.identity_assertion,
    }).toString(),
  }
  const check = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body })
  if (check.status !== 200) throw new Error(`token endpoint answered ${check.status}: ${await check.text()}`)

  await warm({ url: `${baseline.url}/`, connections })
  const bare = await load({ url: `${baseline.url}/`, pid: baseline.pid, connections })
  // The machine may be shared: raw signing and issuance alternate over several rounds, and the
  // median of each is compared, so both see the same background load.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const raws: RawRate[] = []
  const issued: LoadResult[] = []
  await rawSigningRate(connections, 2)
  await warm(request)
  for (let i = 0; i < rounds; i++) {
    raws.push(await rawSigningRate(connections, seconds))
    issued.push(await load(request))
  }
  const median = <T>(values: T[], key: (v: T) => number) => [...values].sort((a, b) => key(a) - key(b))[Math.floor(values.length / 2)] as T
  const raw = median(raws, (v) => v.perSecond)
  const tokens = median(issued, (r) => r.requestsPerSecond)
  console.log(
    `rounds: raw ${raws.map((r) => r.perSecond.toFixed(0)).join(', ')} sig/s; issued ${issued.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')} tok/s`,
  )

  report(`token issuance (${connections} connections, loopback, PostgreSQL)`, bare, [
    { name: 'jose RS256 sign, raw (in-process)', result: asResult(raw), unit: 'sig/s' },
    { name: 'POST /oauth/token jwt-bearer', result: tokens, unit: 'tok/s' },
  ])
  console.log(
    `\njwt-bearer issuance reaches ${((tokens.requestsPerSecond / raw.perSecond) * 100).toFixed(1)} % of jose's raw RS256 signing rate`,
  )
  // CPU per token against CPU per raw signature does not depend on what else the machine runs.
  const medianCpu = median(issued, (r) => r.cpuPerRequest ?? 0).cpuPerRequest
  const rawCpu = median(raws, (r) => r.cpuPerSignature).cpuPerSignature
  if (medianCpu)
    console.log(
      `jwt-bearer token: CPU per token ${medianCpu.toFixed(0)} µs against ${rawCpu.toFixed(0)} µs per raw signature: ${((rawCpu / medianCpu) * 100).toFixed(1)} % efficiency (target >= 85 %): ${rawCpu / medianCpu >= 0.85 ? 'met' : 'NOT met'}`,
    )
} finally {
  await service.stop()
  await baseline.stop()
}
