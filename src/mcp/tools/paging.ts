import { Type } from 'typebox'

/** The /v1 list paging, as tool arguments: page from 1, per_page 1 to 100 (default 20). */
export const Paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
}

export function pageOf(args: { page?: number | undefined; per_page?: number | undefined }) {
  const page = args.page ?? 1
  const perPage = args.per_page ?? 20
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage }
}

export function listOf<T>(data: T[], total: number, paging: { page: number; perPage: number }) {
  return { data, meta: { total, page: paging.page, per_page: paging.perPage } }
}
