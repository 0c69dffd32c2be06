/**
 * The English catalogue, the one the others are checked against: every key here is in de.ts and
 * fr.ts with the same placeholders (test/i18n/catalogues.unit.test.ts). ICU message format.
 */
export const en = {
  'language.switch': 'Language',
  'brand.name': 'Web Presence',

  'error.expired.title': 'This form has expired',
  'error.expired.text': 'The form was open too long or cookies are blocked. Go back, reload the page and try again.',
  'error.server': 'Something went wrong on our side. Try again shortly.',
  'error.title.400': 'Something is wrong with this request',
  'error.title.403': 'Not allowed',
  'error.title.404': 'Not found',
  'error.title.409': 'Cannot do that now',
  'error.title.429': 'Too many attempts',
  'error.title.other': 'Cannot continue',
  'error.wait': 'Wait a minute before trying again.',

  'signin.title': 'Sign in',
  'signin.intro': 'We send a one-time code to your email address. An account is created the first time you sign in.',
  'signin.email': 'Email address',
  'signin.send': 'Send code',
  'signin.invalidEmail': 'Enter a valid email address.',
  'signin.tooManyToday':
    'Too many sign-in codes were asked for this address today, so no more are sent for now. Try again in {hours, plural, one {an hour} other {# hours}}. We have written to the address to say so.',
  'signin.tooManyRecent': 'Too many codes were sent to this address. Try again in 15 minutes.',
  'signin.code.title': 'Enter your code',
  'signin.code.intro': 'We sent a six-digit code to your email address. It is valid for {minutes} minutes.',
  'signin.code.label': 'Code',
  'signin.code.submit': 'Sign in',
  'signin.code.resend': 'Send a new code',
  'signin.code.notACode': 'Enter the six digits of the code from the email.',
  'signin.code.wrong': 'That code is not right. {left, plural, one {# try} other {# tries}} left.',
  'signin.code.noTriesLeft': 'That code is not right, and no tries are left. Ask for a new code.',
  'signin.code.gone.title': 'Code no longer valid',
  'signin.code.expired': 'This code has expired or was tried too often.',
  'signin.code.used': 'This code has already been used.',
  'signin.done.title': 'Signed in',
  'signin.done.text': 'You are signed in as {email}.',
  'signin.out.title': 'Not signed in',
  'signin.out.text': 'You are not signed in. <link>Sign in</link>',
  'signout.button': 'Sign out',
  'signout.title': 'Signed out',
  'signout.text': 'You are signed out. <link>Sign in again</link>',

  'mail.signinCode.subject': 'Your Web Presence sign-in code',
  'mail.signinCode.text':
    'Your sign-in code is {code}\n\nIt is valid for {minutes} minutes. If you did not ask for it, ignore this mail.\n',
  'mail.signinWarning.subject': 'Someone keeps asking for sign-in codes for your address',
  'mail.signinWarning.text':
    'Many sign-in codes for Web Presence were asked for this address today, so we have stopped sending them for now.\n\nIf that was you, wait a few hours and try again. If it was not, nobody can sign in without the codes we mailed to you: you need not do anything, and you may ignore the codes.\n',

  'nav.label': 'Dashboard sections',
  'nav.overview': 'Overview',
  'nav.sites': 'Sites',
  'nav.media': 'Photos',
  'nav.messages': 'Messages',
  'nav.statistics': 'Statistics',
  'nav.team': 'Team',
  'nav.billing': 'Plan and billing',
  'nav.developers': 'Developers',
  'nav.tokens': 'API tokens',
  'nav.webhooks': 'Webhooks',
  'nav.audit': 'Audit log',
  'nav.accounts': 'Accounts',
  'layout.title': '{title} · Web Presence dashboard',
  'layout.who': '{email} ({role})',
  'role.owner': 'owner',
  'role.editor': 'editor',
  'role.viewer': 'viewer',
  'layout.back': 'Back to the dashboard',
  'layout.nothingHere': 'There is nothing at this address. <link>Back to the dashboard</link>',
  'layout.paymentOverdue':
    'The last payment for your plan did not go through. Your plan stays while the card is tried again; {owner, select, yes {<link>update the card on the billing page</link>} other {an owner of the account can update the card}} so that it does not fall back to the free plan.',
  'layout.copy': 'Copy',
  'layout.shownOnce': 'Copy it now: it is shown only once.',
  'common.none': '–',
} as const

export type MessageKey = keyof typeof en
