import type { FastifyRequest } from 'fastify'
import type { MessageKey } from '../../../domain/i18n/translator.ts'

/** The editor's success lines after a POST-redirect-GET, by code (never text taken from the URL). */
const NOTICES: Record<string, MessageKey> = {
  'site-created': 'editor.notice.siteCreated',
  'settings-saved': 'editor.notice.settingsSaved',
  'theme-saved': 'editor.notice.themeSaved',
  'menu-saved': 'editor.notice.menuSaved',
  'page-added': 'editor.notice.pageAdded',
  'page-saved': 'editor.notice.pageSaved',
  'page-deleted': 'editor.notice.pageDeleted',
  'block-added': 'editor.notice.blockAdded',
  'block-saved': 'editor.notice.blockSaved',
  'block-moved': 'editor.notice.blockMoved',
  'block-deleted': 'editor.notice.blockDeleted',
  'build-queued': 'editor.notice.buildQueued',
}

/** The notice a screen shows for `?done=…`, in the page's language; codes of other sections fall through to the dashboard's own. */
export function noticeOf(request: FastifyRequest): { notice?: string } {
  const done = (request.query as { done?: string } | undefined)?.done
  const key = done === undefined ? undefined : NOTICES[done]
  return key === undefined ? {} : { notice: request.t.t(key) }
}
