import type { MessageKey, Translator } from './translator.ts'

/** A refusal or failure as an HTML page tells it: a title and one plain line. */
export interface PageFailure {
  status: number
  title: string
  message: string
}

const TITLES: Record<number, MessageKey> = {
  400: 'error.title.400',
  403: 'error.title.403',
  404: 'error.title.404',
  409: 'error.title.409',
  429: 'error.title.429',
}

/**
 * The words of every HTML error page (dashboard, sign-in pages), in the page's language: a form
 * whose CSRF token no longer matches is "expired", a server failure says nothing of its cause, any
 * other refusal says its detail, worded for people by the room when it knows better (`plain`).
 */
export function pageFailure(
  t: Translator,
  error: { code?: string },
  classified: { status: number; detail: string },
  plain?: string,
): PageFailure {
  if (error.code?.startsWith('FST_CSRF')) return { status: 403, title: t.t('error.expired.title'), message: t.t('error.expired.text') }
  const { status } = classified
  const message = status >= 500 ? t.t('error.server') : (plain ?? classified.detail)
  return { status, title: t.t(TITLES[status] ?? 'error.title.other'), message }
}
