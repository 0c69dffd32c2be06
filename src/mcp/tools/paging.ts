import { Type } from 'typebox'
import { pageOf } from '../../domain/paging.ts'

/** The /v1 list paging, as tool arguments: page from 1, per_page 1 to 100 (default 20). */
export const PagingArguments = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
}

export { pageOf }

export function listOf<T>(data: T[], total: number, paging: { page: number; perPage: number }) {
  return { data, meta: { total, page: paging.page, per_page: paging.perPage } }
}
