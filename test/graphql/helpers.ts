import { expect } from 'vitest'
import { GraphQLClient } from 'graphql-request'
import type { App } from '../../src/app.ts'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite, type SiteRecord } from '../../src/domain/sites/sites.ts'
import { buildTestApp, type TestAppOptions } from '../helpers/app.ts'
import type { TestAccount } from '../rest/helpers.ts'

export { afterAuditFlush, makeAccount, oauthToken } from '../rest/helpers.ts'

/** The service listening on a free port, with the GraphQL endpoint's address. */
export async function listeningApp(options: TestAppOptions = {}) {
  const built = await buildTestApp(options)
  await built.app.listen({ port: 0, host: '127.0.0.1' })
  const address = built.app.server.address()
  const origin = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''
  return { ...built, origin, endpoint: `${origin}/v1/graphql`, ws: `${origin.replace('http', 'ws')}/v1/graphql` }
}

/** A graphql-request client speaking for the account's token; `errorPolicy: 'all'` keeps partial data. */
export function clientFor(endpoint: string, account: Pick<TestAccount, 'headers'> | { headers: Record<string, string> }) {
  return new GraphQLClient(endpoint, { headers: account.headers, errorPolicy: 'all' })
}

/** A POST with fetch, for what a client library hides: the status, the headers, the media type. */
export async function post(endpoint: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as { data?: any; errors?: any; extensions?: any } }
}

export async function get(endpoint: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const query = new URLSearchParams(
    Object.entries(params).map(([key, value]): [string, string] => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  )
  const res = await fetch(`${endpoint}?${query}`, { headers })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as { data?: any; errors?: any; extensions?: any } }
}

/** A site of the account with `pages` pages of `blocks` text blocks each, made through the domain functions. */
export async function siteWithContent(
  app: App,
  accountId: string,
  pages: number,
  blocks: number,
  name = 'Bakery',
): Promise<{ site: SiteRecord; pageIds: string[] }> {
  const site = await createAccountSite(app.db, accountId, { name })
  const pageIds: string[] = []
  for (let p = 0; p < pages; p++) {
    const page = await createPage(app.db, site, { path: p === 0 ? '/' : `/page-${p}`, title: `Page ${p}` })
    pageIds.push(page.id)
    for (let b = 0; b < blocks; b++) await insertBlock(app.db, page.id, { type: 'text', content: { markdown: `Block ${b} of page ${p}` } })
  }
  return { site, pageIds }
}

export type GraphqlAnswer = { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions: Record<string, unknown> }> } // eslint-disable-line @typescript-eslint/no-explicit-any

/** One GraphQL request over HTTP at `base` with a member's API token, answered 200; its body. */
export async function graphqlAs(
  base: string,
  member: { api: { authorization: string } },
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GraphqlAnswer> {
  const res = await fetch(`${base}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...member.api },
    body: JSON.stringify({ query, variables }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as GraphqlAnswer
}
