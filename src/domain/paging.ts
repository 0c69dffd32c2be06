/**
 * The one paging type: the part of a list a repository reads, `limit` items from `offset`. Every
 * interface turns its own way of asking into it: /v1's and MCP's `page` and `per_page`
 * (`pageOf`), GraphQL's `first` and `after` (`windowOf` in src/graphql/paging.ts).
 */
export interface Paging {
  limit: number
  offset: number
}

/** A numbered page (/v1 and MCP): the Paging, and the numbers a list's `meta` answers with. */
export interface NumberedPage extends Paging {
  page: number
  perPage: number
}

/** `page` from 1 and `per_page` (20 unless given) as the Paging they ask for. */
export function pageOf(query: { page?: number | undefined; per_page?: number | undefined }): NumberedPage {
  const page = query.page ?? 1
  const perPage = query.per_page ?? 20
  return { limit: perPage, offset: (page - 1) * perPage, page, perPage }
}
