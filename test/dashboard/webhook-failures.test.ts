import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { newId } from '../../src/infra/crypto.ts'
import type { WebhookFailure } from '../../src/infra/tables.ts'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, signedIn } from './helpers.ts'

// A delivery's failure is worded in the page's language from the code the engine records beside
// the receiver's own words (migration 2026-11-28T1610), which follow as code for the developer.
describe('webhook delivery failures in the owner’s language', async () => {
  const { app } = await buildTestApp({ env: { JOB_CONCURRENCY: '0' } })
  const owner = await signedIn(app, 'hooks-owner@example.com')
  await updateAccount(app.db, owner.user.accountId, { plan: 'pro' })
  const { cookie } = await dashboardBrowser(app, owner, '/app/webhooks')
  const { row: endpoint } = await createEndpoint(app.db, app.keyring, owner.user.accountId, { url: 'https://hooks.example.org/in' })
  const deadLetter = async (failure: WebhookFailure | null, error: string, status: number | null = null) => {
    // No job runs here: the event's fan-out stays queued, and the dead letter is written as the engine leaves one.
    const eventId = await recordEvent(app.db, { accountId: owner.user.accountId, type: 'site.published', data: {} })
    await app.db
      .insertInto('webhook_deliveries')
      .values({
        id: newId('whd'),
        account_id: owner.user.accountId,
        endpoint_id: endpoint.id,
        event_id: eventId,
        state: 'dead',
        attempts: 1,
        last_status: status,
        last_error: error,
        last_failure: failure,
        failed_at: new Date(),
      })
      .execute()
  }
  await deadLetter('dns', 'hooks.example.org could not be resolved (ENOTFOUND)')
  await deadLetter('timeout', 'No complete answer within 10000 ms')
  await deadLetter('status', 'the endpoint answered 422', 422)

  const problems = async (lang: string) => {
    const res = await app.inject({ method: 'GET', url: '/app/webhooks', headers: { cookie, 'accept-language': lang } })
    expect(res.statusCode, res.body).toBe(200)
    const $ = cheerio.load(res.body)
    return $('td')
      .map((_i, td) => $(td).text())
      .get()
      .filter((text) => /ENOTFOUND|10000 ms|422/.test(text))
  }

  it('says what went wrong in German and in French, the receiver’s words kept as code', async () => {
    const de = await problems('de')
    expect(de).toContain('Der Hostname des Endpunkts wurde nicht gefunden. hooks.example.org could not be resolved (ENOTFOUND)')
    expect(de.some((text) => text.startsWith('Der Endpunkt hat nicht rechtzeitig geantwortet.'))).toBe(true)
    expect(de.some((text) => text.includes('422') && !text.includes('the endpoint answered'))).toBe(true)
    const fr = await problems('fr')
    expect(fr.some((text) => text.startsWith('Le nom d’hôte du point de terminaison est introuvable.'))).toBe(true)
  })
})
