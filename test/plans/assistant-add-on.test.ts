import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import { bootstrap, chat, expectAgentError, freshIp } from '../agent/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { runAdmin } from '../helpers/process.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'
import { owner } from './helpers.ts'

// The AI sales assistant on an account's own sites is the add-on ai_sales_assistant, from plus,
// switched by the operator (DESIGN.md 12). Without it the assistant of the account's sites
// answers 404 feature-disabled and published pages embed no widget; the platform's own site
// keeps its assistant. On PostgreSQL the operator's CLI runs beside the service; the embedded
// database admits one process, so there the CLI's own domain function is called.
const databaseUrl = onPostgres ? await freshDatabaseUrl() : undefined
const { app } = await buildTestApp({ ...(databaseUrl ? { databaseUrl } : {}) })
const admin = (...args: string[]) => runAdmin({ DATABASE_URL: databaseUrl! }, ...args)

/** Switches the add-on as the operator does: `npm run admin -- account add-on …`. */
async function switchAssistant(accountId: string, state: 'on' | 'off'): Promise<void> {
  if (!onPostgres) {
    await setAddOn(app.db, { accountId, addOn: 'ai_sales_assistant', on: state === 'on' })
    return
  }
  const result = await admin('account', 'add-on', accountId, 'ai_sales_assistant', state, '--json')
  expect(result.code, result.stderr).toBe(0)
  expect(JSON.parse(result.stdout)).toMatchObject({ id: accountId, plan: 'plus', add_ons: state === 'on' ? { ai_sales_assistant: 1 } : {} })
}

const HOST = 'assistant.add-on.example'
const ask = () =>
  app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { url: `https://${HOST}/` }, remoteAddress: freshIp() })
const page = async () => (await app.inject({ method: 'GET', url: '/', headers: { host: HOST } })).body
const WIDGET = /<script [^>]*src="[^"]*\/widget\.js"/

describe('the ai_sales_assistant add-on', () => {
  it(
    "without it the assistant of the account's site is 404 and no widget is embedded; switched on it answers; switched off it stops, mid-conversation too",
    async () => {
      const who = await owner(app, 'assistant-owner@example.com', 'plus')
      const site = await bakerySite(app, {
        accountId: who.accountId,
        hostname: HOST,
        settings: { assistant: { enabled: true, persona: 'Hanna', capabilities: { lead: true } } },
      })
      expect((await buildSite(app, site.id)).status).toBe('succeeded')
      expectAgentError(await ask(), 404, 'feature-disabled')
      expect(await page()).not.toMatch(WIDGET)
      // The owner's choice is kept and shown; only the add-on is missing.
      expect((await app.inject({ method: 'GET', url: `/v1/sites/${site.id}`, headers: who.headers })).json().assistant).toMatchObject({
        enabled: true,
        persona: 'Hanna',
      })

      await switchAssistant(who.accountId, 'on')
      const session = await bootstrap(app, { url: `https://${HOST}/` })
      expect(session).toMatchObject({ persona: 'Hanna' })
      expect((await chat(app, session, 'What bread do you bake?')).statusCode).toBe(200)
      expect((await buildSite(app, site.id)).status).toBe('succeeded')
      expect(await page()).toMatch(WIDGET)

      await switchAssistant(who.accountId, 'off')
      expectAgentError(await ask(), 404, 'feature-disabled')
      expectAgentError(await chat(app, session, 'And rye?'), 404, 'feature-disabled')
      expect((await buildSite(app, site.id)).status).toBe('succeeded')
      expect(await page()).not.toMatch(WIDGET)

      // The platform's own site keeps its assistant.
      expect((await bootstrap(app, {})).capabilities).toMatchObject({ lead: true, handoff: true })
    },
    SETUP_TIMEOUT_MS,
  )

  it(
    'is available from plus: refused below, and a downgrade below plus silences it until the plan offers it again',
    async () => {
      const lite = await owner(app, 'assistant-lite@example.com', 'lite')
      const refusal = `The account ${lite.accountId} is on plan lite; the AI sales assistant add-on is available from plan plus`
      if (onPostgres) {
        const refused = await admin('account', 'add-on', lite.accountId, 'ai_sales_assistant', 'on')
        expect(refused.code).toBe(1)
        expect(refused.stderr).toContain(refusal)
        expect((await admin('account', 'add-on', lite.accountId, 'ai_sales_assistant', 'on', '--quantity', '2')).code).toBe(1)
        expect((await admin('account', 'add-on', lite.accountId, 'gold_star', 'on')).code).toBe(2)
        expect((await admin('account', 'add-on', lite.accountId, 'ai_sales_assistant', 'maybe')).code).toBe(2)
      } else {
        await expect(setAddOn(app.db, { accountId: lite.accountId, addOn: 'ai_sales_assistant', on: true })).rejects.toMatchObject({
          code: 'PLAN_REQUIRED',
          message: refusal,
        })
      }

      const who = await owner(app, 'assistant-downgrade@example.com', 'plus')
      const host = 'downgraded-assistant.add-on.example'
      await bakerySite(app, { accountId: who.accountId, hostname: host, settings: { assistant: { enabled: true } } })
      await switchAssistant(who.accountId, 'on')
      const askHere = () =>
        app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { url: `https://${host}/` }, remoteAddress: freshIp() })
      expect((await askHere()).statusCode).toBe(200)
      await updateAccount(app.db, who.accountId, { plan: 'lite' })
      expectAgentError(await askHere(), 404, 'feature-disabled')
      await updateAccount(app.db, who.accountId, { plan: 'plus' })
      expect((await askHere()).statusCode).toBe(200)

      if (onPostgres) {
        const listed = await admin('account', 'list', '--json')
        expect(listed.code, listed.stderr).toBe(0)
        const accounts = JSON.parse(listed.stdout) as Array<{ id: string; add_ons: Record<string, number> }>
        expect(accounts.find((a) => a.id === who.accountId)?.add_ons).toEqual({ ai_sales_assistant: 1 })
        expect(accounts.find((a) => a.id === lite.accountId)?.add_ons).toEqual({})
        const text = await admin('account', 'list')
        expect(text.stdout).toMatch(new RegExp(`${who.accountId}  assistant-downgrade@example.com  plus  add-ons ai_sales_assistant`))
        const extra = await admin('account', 'add-on', who.accountId, 'extra_domain', 'on', '--quantity', '3')
        expect(extra.code, extra.stderr).toBe(0)
        expect(extra.stdout).toContain('add-ons extra_domain ×3, ai_sales_assistant')
      }
    },
    SETUP_TIMEOUT_MS,
  )
})
