import { describe, expect, it } from 'vitest'
import { loadEmailHasher } from '../../src/domain/accounts/email-lookup.ts'
import { CODES_PER_EMAIL_PER_DAY } from '../../src/identity/pages/sign-in.ts'
import { insertChallenge } from '../../src/identity/stores/sign-in-challenges.ts'
import { readOutbox } from '../../src/infra/mailer.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'

/**
 * Sign-in codes an address may get in a day: past the cap no code is mailed, the page says so in
 * plain words and when to try again, and the address is told once a day that someone is trying.
 */
const { app, base } = await startLiveApp()

/** Codes asked for earlier today, spread over the hours before the last quarter hour (whose own limit is five). */
async function earlierCodes(email: string, count: number) {
  const hash = (await loadEmailHasher(app.db, app.keyring))(email)
  for (let i = 0; i < count; i++) {
    const id = await insertChallenge(app.db, app.keyring, {
      emailHash: hash,
      email,
      code: '123456',
      returnTo: '/app',
      expiresAt: new Date(Date.now() + 600_000),
    })
    const at = new Date(Date.now() - (22 - i) * 3600_000 + 60_000 * i)
    await app.db
      .updateTable('sign_in_challenges')
      .set({ created_at: at } as never)
      .where('id', '=', id)
      .execute()
  }
}

describe('the daily cap of sign-in codes per address', () => {
  it('mails no more codes, tells the person when to try again, and warns the address once a day', async () => {
    const email = 'targeted@example.com'
    await earlierCodes(email, CODES_PER_EMAIL_PER_DAY)
    const person = new Browser(base)
    const refused = await person.submit(await person.get('/signin'), { email })
    expect(refused.status).toBe(429)
    expect(refused.$('[role=alert], .error').text() || refused.html).toContain('Too many sign-in codes were asked for this address today')
    // The oldest of the day's codes was asked for 22 hours ago: a code is free again in 2 hours.
    expect(refused.html).toContain('Try again in 2 hours')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3600)
    expect(refused.$('input[name=email]').val()).toBe(email)

    const mails = await readOutbox(app.db, app.keyring, email)
    expect(mails.map((m) => m.subject)).toEqual(['Someone keeps asking for sign-in codes for your address'])
    expect(mails[0]!.text).not.toMatch(/\b\d{6}\b/)

    // Asked again: refused again, and no second warning the same day.
    expect((await person.submit(await person.get('/signin'), { email })).status).toBe(429)
    expect(await readOutbox(app.db, app.keyring, email)).toHaveLength(1)
  })

  it('leaves an address below the cap alone', async () => {
    const email = 'ordinary@example.com'
    await earlierCodes(email, CODES_PER_EMAIL_PER_DAY - 1)
    const person = new Browser(base)
    expect((await person.submit(await person.get('/signin'), { email })).status).toBe(303)
    expect((await readOutbox(app.db, app.keyring, email)).map((m) => m.subject)).toEqual(['Your Web Presence sign-in code'])
  })
})
