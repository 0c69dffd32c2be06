/** A refusal or failure as an HTML page tells it: a title and one plain line. */
export interface PageFailure {
  status: number
  title: string
  message: string
}

const TITLES: Record<number, string> = {
  400: 'Something is wrong with this request',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Cannot do that now',
  429: 'Too many attempts',
}

/**
 * The words of every HTML error page (dashboard, sign-in pages): a form whose CSRF token no longer
 * matches is "expired", a server failure says nothing of its cause, any other refusal says its
 * detail, worded for people by the room when it knows better (`plain`).
 */
export function pageFailure(error: { code?: string }, classified: { status: number; detail: string }, plain?: string): PageFailure {
  if (error.code?.startsWith('FST_CSRF'))
    return {
      status: 403,
      title: 'This form has expired',
      message: 'The form was open too long or cookies are blocked. Go back, reload the page and try again.',
    }
  const { status } = classified
  const message = status >= 500 ? 'Something went wrong on our side. Try again shortly.' : (plain ?? classified.detail)
  return { status, title: TITLES[status] ?? 'Cannot continue', message }
}
