import { describe, expect, it } from 'vitest'
import { readOutbox } from '../../src/infra/mailer.ts'
import { Browser, latestCode, startLiveApp } from './helpers.ts'

const { app, base } = await startLiveApp()

const token = (values: Record<string, string>, ip: string) =>
  app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress: ip,
    payload: new URLSearchParams(values).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })

describe('throttling of guessing and of the machine endpoints', () => {
  it('gives a sign-in code five tries, then refuses even the right code', async () => {
    const person = new Browser(base)
    const sent = await person.follow(await person.submit(await person.get('/signin'), { email: 'guess@example.com' }))
    const code = await latestCode(app, 'guess@example.com')
    const wrong = code === '000000' ? '000001' : '000000'
    for (let i = 1; i <= 5; i++) {
      const page = await person.submit(sent, { code: wrong })
      expect(page.status).toBe(400)
      expect(page.html).toContain(i < 5 ? `${5 - i} ${5 - i === 1 ? 'try' : 'tries'} left` : 'no tries are left')
    }
    const right = await person.submit(sent, { code })
    expect(right.status).toBe(410)
    expect(right.headers.get('set-cookie') ?? '').not.toContain('wps_session')
  })

  it('spends no try on what cannot be a code, and reads a code typed with a space', async () => {
    const person = new Browser(base)
    const sent = await person.follow(await person.submit(await person.get('/signin'), { email: 'typo@example.com' }))
    const code = await latestCode(app, 'typo@example.com')
    for (const typed of ['', '12', 'abcdef', '1234567']) {
      const page = await person.submit(sent, { code: typed })
      expect(page.status, typed).toBe(400)
      expect(page.html).toContain('Enter the six digits of the code from the email.')
      expect(page.html).not.toMatch(/tr(y|ies) left/)
    }
    const wrong = code === '000000' ? '000001' : '000000'
    expect((await person.submit(sent, { code: wrong })).html).toContain('4 tries left')
    const right = await person.submit(sent, { code: `${code.slice(0, 3)} ${code.slice(3)}` })
    expect(right.status).toBe(303)
    expect(right.headers.get('set-cookie') ?? '').toContain('wps_session')
  })

  it('mails at most five codes to one address in a quarter hour', async () => {
    const person = new Browser(base)
    for (let i = 0; i < 5; i++) expect((await person.submit(await person.get('/signin'), { email: 'flood@example.com' })).status).toBe(303)
    const sixth = await person.submit(await person.get('/signin'), { email: 'flood@example.com' })
    expect(sixth.status).toBe(429)
    expect(sixth.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect((await readOutbox(app.db, app.keyring, 'flood@example.com')).length).toBe(5)
  })

  it('logs the outbox mail without the code or the address', async () => {
    const mails = await readOutbox(app.db, app.keyring, 'guess@example.com')
    expect(mails[0]?.subject).toBe('Your Web Presence sign-in code')
    const row = await app.db.selectFrom('outbox').selectAll().where('id', '=', mails[0]!.id).executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain('guess@example.com')
    expect(JSON.stringify(row)).not.toMatch(/sign-in code is \d{6}/)
  })

  it('limits user-code entries per address (ten a minute)', async () => {
    const person = new Browser(base)
    const entry = await person.get('/agent/identity/verify')
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) statuses.push((await person.submit(entry, { user_code: 'BCDF-GHJK' })).status)
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true)
    expect(statuses[10]).toBe(429)
  })

  it('limits the token endpoint to 60 a minute per client, answering 429 in the OAuth shape', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 61; i++)
      statuses.push((await token({ grant_type: 'refresh_token', refresh_token: 'rt_x', client_id: 'cli_busy' }, '198.51.100.1')).statusCode)
    expect(statuses.slice(0, 60).every((s) => s === 400)).toBe(true)
    const limited = await token({ grant_type: 'refresh_token', refresh_token: 'rt_x', client_id: 'cli_busy' }, '198.51.100.2')
    expect(limited.statusCode).toBe(429)
    expect(limited.headers['cache-control']).toBe('no-store')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(limited.json()).toEqual({ error: 'rate_limited', error_description: expect.any(String) })
    // Another client from the same address is not affected.
    expect((await token({ grant_type: 'refresh_token', refresh_token: 'rt_x', client_id: 'cli_calm' }, '198.51.100.1')).statusCode).toBe(
      400,
    )
  })

  it('limits anonymous registrations per address', async () => {
    const register = (ip: string) =>
      app.inject({ method: 'POST', url: '/agent/identity', remoteAddress: ip, payload: { type: 'anonymous' } })
    for (let i = 0; i < 30; i++) expect((await register('198.51.100.7')).statusCode).toBe(200)
    const limited = await register('198.51.100.7')
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error).toBe('rate_limited')
  })
})
