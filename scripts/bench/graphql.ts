// GraphQL beside REST on real PostgreSQL, authentication, quota and audit log on, at 32
// connections, every figure measured in the same run (medians of rounds):
// - a site with 10 pages and their blocks: one GraphQL query against the REST calls that fetch the
//   same data (GET the site, GET each of its 10 pages, GET each page's blocks: 1 + 10 + 10 requests,
//   one connection making them in order). Target: the query at 3x the REST sequences per second.
// - `sites(first: 50)` with REST's site fields against GET /v1/sites?per_page=50 on the same 50
//   sites. Target: 0.8x GET /v1/sites or more.
import { randomBytes } from 'node:crypto'
import type autocannon from 'autocannon'
import { benchAccountToken, load, median, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const dataKey = randomBytes(32).toString('base64')
const PAGES = 10
const BLOCKS_PER_PAGE = 5

const SITE_WITH_PAGES = `query SiteWithPages($id: ID!) {
  site(id: $id) {
    id name domain subdomain status defaultLocale locales previewUrl url createdAt updatedAt publishedAt
    assistant { enabled persona bookingUrl lead handoff }
    pages(first: ${PAGES}) { nodes {
      id siteId path locale title description createdAt updatedAt
      blocks(first: 20) { nodes { id pageId type position content } }
    } }
  }
}`
const SITES = `query Sites {
  sites(first: 50) { totalCount nodes {
    id name domain subdomain status defaultLocale locales previewUrl url createdAt updatedAt publishedAt
    assistant { enabled persona bookingUrl lead handoff }
  } }
}`

const bare = await startBaseline()
const service = await startService({ DATA_ENCRYPTION_KEY: dataKey })
try {
  const { token } = await benchAccountToken(service.databaseUrl, dataKey, 'read:sites,write:pages')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as { id: string }
  }
  const sites: string[] = []
  for (let i = 0; i < 50; i++) sites.push((await api('POST', '/v1/sites', { name: `Bench site ${i}` })).id)
  const siteId = sites[0]!
  const pages: string[] = []
  for (let p = 0; p < PAGES; p++) {
    const page = await api('POST', `/v1/sites/${siteId}/pages`, {
      path: p === 0 ? '/' : `/page-${p}`,
      title: `Page ${p}`,
      description: 'A page of the bench site',
    })
    pages.push(page.id)
    for (let b = 0; b < BLOCKS_PER_PAGE; b++)
      await api('POST', `/v1/pages/${page.id}/blocks`, {
        type: 'text',
        content: { markdown: `Block ${b} of page ${p}: ${'lorem ipsum '.repeat(10)}` },
      })
  }

  // As clients send them: `variables` only for an operation that has some.
  const graphql = (query: string, variables?: Record<string, unknown>) => ({
    url: `${service.url}/v1/graphql`,
    pid: service.pid,
    connections,
    method: 'POST',
    headers,
    body: JSON.stringify(variables ? { query, variables } : { query }),
  })
  const siteQuery = graphql(SITE_WITH_PAGES, { id: siteId })
  const sitesQuery = graphql(SITES)
  const check = async (target: { body: string }, expect: (data: any) => boolean) => {
    const res = await fetch(`${service.url}/v1/graphql`, { method: 'POST', headers, body: target.body })
    const answer = (await res.json()) as { data?: unknown; errors?: unknown }
    if (res.status !== 200 || answer.errors || !expect(answer.data))
      throw new Error(`GraphQL answered ${res.status}: ${JSON.stringify(answer).slice(0, 500)}`)
  }
  await check(
    siteQuery,
    (data) => data.site.pages.nodes.length === PAGES && data.site.pages.nodes.every((p: any) => p.blocks.nodes.length === BLOCKS_PER_PAGE),
  )
  await check(sitesQuery, (data) => data.sites.nodes.length === 50)

  // The REST sequence: each connection makes the 21 requests in order, again and again.
  const sequence: autocannon.Request[] = [
    { method: 'GET', path: `/v1/sites/${siteId}` },
    ...pages.map((id) => ({ method: 'GET' as const, path: `/v1/pages/${id}` })),
    ...pages.map((id) => ({ method: 'GET' as const, path: `/v1/pages/${id}/blocks` })),
  ]
  const restSequence = { url: service.url, pid: service.pid, connections, headers, requests: sequence }
  const restList = { url: `${service.url}/v1/sites?per_page=50`, pid: service.pid, connections, headers }
  const hello = { url: `${bare.url}/`, pid: bare.pid, connections }

  const targets = { hello, restSequence, siteQuery, restList, sitesQuery }
  for (const target of Object.values(targets)) await warm(target)
  // The machine may be shared: the targets alternate over several rounds and medians are compared.
  const results = Object.fromEntries(Object.keys(targets).map((name) => [name, [] as LoadResult[]])) as Record<
    keyof typeof targets,
    LoadResult[]
  >
  for (let i = 0; i < rounds; i++) {
    for (const [name, target] of Object.entries(targets)) results[name as keyof typeof targets].push(await load(target))
  }
  // A REST "request" above is one of the sequence's 21: a sequence per second is 21 of them.
  const perSequence = (r: LoadResult): LoadResult => ({
    ...r,
    requestsPerSecond: r.requestsPerSecond / sequence.length,
    cpuPerRequest: r.cpuPerRequest == null ? null : r.cpuPerRequest * sequence.length,
  })
  const restSequenceResult = perSequence(median(results.restSequence))
  const siteQueryResult = median(results.siteQuery)
  const restListResult = median(results.restList)
  const sitesQueryResult = median(results.sitesQuery)
  report(`GraphQL beside REST (${connections} connections, loopback, PostgreSQL; auth, quota and audit log on)`, median(results.hello), [
    { name: `REST: site + ${PAGES} pages + ${PAGES} block lists`, result: restSequenceResult, unit: 'seq/s' },
    { name: `GraphQL: the same in one query`, result: siteQueryResult, unit: 'query/s' },
    { name: 'REST: GET /v1/sites (50 sites)', result: restListResult },
    { name: 'GraphQL: sites(first: 50)', result: sitesQueryResult },
  ])
  const nested = siteQueryResult.requestsPerSecond / restSequenceResult.requestsPerSecond
  const flat = sitesQueryResult.requestsPerSecond / restListResult.requestsPerSecond
  console.log(
    `\nsite with ${PAGES} pages and their blocks: GraphQL ${nested.toFixed(2)}x the REST sequence (target >= 3): ${nested >= 3 ? 'met' : 'NOT met'}`,
  )
  console.log(`sites(first: 50): ${flat.toFixed(2)}x GET /v1/sites (target >= 0.8): ${flat >= 0.8 ? 'met' : 'NOT met'}`)
} finally {
  await service.stop()
  await bare.stop()
}
