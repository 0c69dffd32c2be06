import type { FastifyRequest } from 'fastify'

/** The editor's success lines after a POST-redirect-GET, by code (never text taken from the URL). */
const NOTICES: Record<string, string> = {
  'site-created': 'Your site was created. Add its first page, then publish.',
  'settings-saved': 'The settings were saved. Publish to show the changes on your site.',
  'theme-saved': 'The look was saved. Publish to show it on your site.',
  'menu-saved': 'The menu was saved. Publish to show it on your site.',
  'page-added': 'The page was added. Now add blocks to it.',
  'page-saved': 'The page was saved. Publish to show the changes on your site.',
  'page-deleted': 'The page was deleted. Publish to take it off your site.',
  'block-added': 'The block was added. Publish to show it on your site.',
  'block-saved': 'The block was saved. Publish to show the changes on your site.',
  'block-moved': 'The block was moved.',
  'block-deleted': 'The block was deleted.',
  'build-queued':
    'A build was queued. Your site is being published; it usually takes a few seconds. Reload this page to see when it is live.',
}

/** The notice a screen shows for `?done=…`; codes of other sections fall through to the dashboard's own. */
export function noticeOf(request: FastifyRequest): { notice?: string } {
  const done = (request.query as { done?: string } | undefined)?.done
  const notice = done === undefined ? undefined : NOTICES[done]
  return notice === undefined ? {} : { notice }
}
