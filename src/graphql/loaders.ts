import type { MercuriusLoaders } from 'mercurius'
import type { Db } from '../infra/db.ts'
import {
  blocksOfPages,
  buildsOfSites,
  domainsOfSites,
  pagesOfSites,
  redirectsOfSites,
  revisionsOfPages,
  type Slice,
} from './batch-reads.ts'
import type { Paging } from '../domain/paging.ts'
import { connection, windowOf } from './paging.ts'
import { blockNode, buildNode, domainNode, pageNode, redirectNode, revisionNode, type PageNode, type SiteNode } from './views.ts'

/**
 * Nested lists are read by mercurius loaders: every site (or page) of an answer asks for its
 * children in the same tick, and the loader reads them for all of them in one statement per
 * window asked for. 50 sites with their pages and their blocks are three statements, whatever
 * the counts.
 */

interface Query<P, A> {
  obj: P
  params: A
}

type Args = { first?: number | null; after?: string | null }

/** The queries grouped by the window they ask for, each group read at once, answered in order. */
async function byWindow<P extends { id: string }, T>(
  queries: ReadonlyArray<Query<P, Args>>,
  defaultFirst: number,
  read: (ids: string[], window: Paging) => Promise<Map<string, Slice<T>>>,
): Promise<Array<{ slice: Slice<T>; window: Paging } | Error>> {
  const groups = new Map<string, { window: Paging; ids: Set<string> }>()
  const windows = queries.map(({ obj, params }) => {
    try {
      const window = windowOf(params, defaultFirst)
      const key = `${window.limit}:${window.offset}`
      const group = groups.get(key) ?? groups.set(key, { window, ids: new Set() }).get(key)!
      group.ids.add(obj.id)
      return { key, window }
    } catch (error) {
      return error as Error
    }
  })
  const read_ = new Map<string, Map<string, Slice<T>>>()
  await Promise.all([...groups].map(async ([key, group]) => read_.set(key, await read([...group.ids], group.window))))
  return windows.map((entry, i) =>
    entry instanceof Error ? entry : { slice: read_.get(entry.key)!.get(queries[i]!.obj.id)!, window: entry.window },
  )
}

export function loaders(db: Db): MercuriusLoaders {
  return {
    Site: {
      async pages(queries: Array<Query<SiteNode, Args>>) {
        const answers = await byWindow(queries, 20, (ids, window) => pagesOfSites(db, ids, window))
        return answers.map((a) => (a instanceof Error ? a : connection(a.slice.items.map(pageNode), a.slice.total, a.window.offset)))
      },
      async domains(queries: Array<Query<SiteNode, Args>>) {
        const answers = await byWindow(queries, 20, (ids, window) => domainsOfSites(db, ids, window))
        return answers.map((a) => (a instanceof Error ? a : a.slice.items.map(domainNode)))
      },
      async builds(queries: Array<Query<SiteNode, Args>>) {
        const answers = await byWindow(queries, 10, (ids, window) => buildsOfSites(db, ids, window))
        return answers.map((a) => (a instanceof Error ? a : a.slice.items.map(buildNode)))
      },
      async redirects(queries: Array<Query<SiteNode, Args>>) {
        const answers = await byWindow(queries, 20, (ids, window) => redirectsOfSites(db, ids, window))
        return answers.map((a) => (a instanceof Error ? a : connection(a.slice.items.map(redirectNode), a.slice.total, a.window.offset)))
      },
    },
    Page: {
      async blocks(queries: Array<Query<PageNode, Args>>) {
        const answers = await byWindow(queries, 20, (ids, window) => blocksOfPages(db, ids, window))
        return answers.map((a) => (a instanceof Error ? a : connection(a.slice.items.map(blockNode), a.slice.total, a.window.offset)))
      },
      async revisions(queries: Array<Query<PageNode, Args>>) {
        const answers = await byWindow(queries, 20, (ids, window) => revisionsOfPages(db, ids, window))
        return answers.map((a) => (a instanceof Error ? a : connection(a.slice.items.map(revisionNode), a.slice.total, a.window.offset)))
      },
    },
  } as unknown as MercuriusLoaders
}
