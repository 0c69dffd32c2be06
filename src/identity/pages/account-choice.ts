import type { FastifyInstance, FastifyRequest } from 'fastify'
import { membershipsOf, type Membership } from '../../domain/accounts/members.ts'
import { sessionUser, webCookieNames } from '../../domain/accounts/web-sessions.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
import { html, type SafeHtml } from '../../infra/html.ts'

/**
 * Which account an application (the consent page) or an agent (the claim's verification page)
 * will act for. A person may belong to several: the pages offer each of them, the one this
 * browser works in chosen already, and the answer names the one picked.
 */
export interface AccountChoice {
  /** Every account the person belongs to, the one they joined first first. */
  accounts: Membership[]
  /** The account this browser works in (the dashboard's switch), else the person's default. */
  current: string
}

export async function accountChoice(app: FastifyInstance, request: FastifyRequest, userId: string): Promise<AccountChoice> {
  const token = request.cookies[webCookieNames(app.config.BASE_URL).session] ?? ''
  const [accounts, session] = await Promise.all([membershipsOf(app.db, app.keyring, userId), sessionUser(app.db, app.keyring, token)])
  const current = session?.userId === userId ? session.accountId : (accounts[0]?.accountId ?? '')
  return { accounts, current }
}

/**
 * The account a submitted form names, when the person belongs to it; without one (a form from
 * before the field, or a person with one account) the account this browser works in. Undefined:
 * the person is not a member of the account named.
 */
export function chosenAccount(choice: AccountChoice, submitted: string | undefined): string | undefined {
  const wanted = submitted || choice.current
  return choice.accounts.some((account) => account.accountId === wanted) ? wanted : undefined
}

const named = (t: Translator, account: Pick<Membership, 'accountId' | 'ownerEmail'>) =>
  account.ownerEmail ? t.t('consent.accountOf', { email: account.ownerEmail }) : t.t('consent.accountId', { id: account.accountId })

/** How the pages name one of the person's accounts once chosen: "the account of …". */
export function accountName(t: Translator, choice: AccountChoice, accountId: string): string {
  return named(t, choice.accounts.find((a) => a.accountId === accountId) ?? { accountId, ownerEmail: null })
}

const label = (t: Translator, account: Membership) => t.t('consent.accountLabel', { account: named(t, account), role: account.role })

/** The form's account field: a choice among several accounts, or a line naming the only one. */
export function accountField(t: Translator, choice: AccountChoice): SafeHtml {
  const [first, ...others] = choice.accounts
  if (!first) return html``
  if (others.length === 0) return html`<p>${t.t('consent.forOnly', { account: label(t, first) })}</p>`
  return html`<p><label for="account_id">${t.t('consent.whichAccount')}</label>
<select id="account_id" name="account_id">${choice.accounts.map(
    (account) =>
      html`<option value="${account.accountId}"${account.accountId === choice.current ? html` selected` : html``}>${label(t, account)}</option>`,
  )}</select></p>`
}
