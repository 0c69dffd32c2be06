import { describe, expect, it } from 'vitest'
import { buildKnowledgeBase } from '../../src/agent/knowledge.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { turnInput } from '../agent/turn-input.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'

// The service's own assistant answers a question about a plan's limits with a link to the page
// where an owner upgrades (DESIGN.md 16, issue "link to the upgrade where the person may make it");
// a hosted site's assistant, speaking to the site's visitors, never offers it.
const { app, base } = await startLiveApp()

describe('the assistant links a plan’s limits to the upgrade', () => {
  it('answers storage and statistics questions with the billing page, which a signed-out visitor reaches through sign-in', async () => {
    const session = await bootstrap(app, {})
    for (const message of ['How much storage do I get on Lite?', 'How long are visitor statistics kept on Plus?']) {
      const res = await chat(app, session, message)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toMatchObject({ actions: [{ type: 'navigate', href: '/app/billing' }] })
    }
    const signedOut = await fetch(`${base}/app/billing`, { redirect: 'manual' })
    expect(signedOut.status).toBe(303)
    expect(signedOut.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent('/app/billing')}`)
    const team = await makeTeam(app, 'free')
    const page = await fetch(`${base}/app/billing`, { headers: { cookie: team.owner.cookie } })
    expect(page.status).toBe(200)
  })

  it('offers no upgrade on a hosted site, nor on the billing page itself', () => {
    const kb = buildKnowledgeBase()
    expect(planTurn(kb, turnInput('en', 'How much storage do I get on Lite?')).actions).toEqual([
      { type: 'navigate', href: '/app/billing' },
    ])
    expect(planTurn(kb, turnInput('en', 'How much storage do I get on Lite?', { siteId: 'site_hosted' })).actions).toBeUndefined()
    const onBilling = { ...turnInput('de', 'Wie viel Speicher habe ich bei Lite?'), pagePath: '/app/billing' }
    expect(planTurn(kb, onBilling).actions).toBeUndefined()
  })
})
