import * as cheerio from 'cheerio'
import * as oauth from 'oauth4webapi'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { readOutbox } from '../../src/infra/mailer.ts'
import { buildTestApp } from '../helpers/app.ts'

/**
 * A port below the kernel's ephemeral range (32768+), so an outgoing connection (the database
 * pool's) cannot take it between choosing and listening; a collision with another test file is retried.
 */
function candidatePort(): number {
  return 10_000 + Math.floor(Math.random() * 20_000)
}

export interface LiveApp {
  app: FastifyInstance
  base: string
  /** Parsed log lines (only with `captureLogs`). */
  logs: Array<Record<string, unknown>>
}

/** The whole service listening on a loopback port, with BASE_URL set to that origin. */
export async function startLiveApp(
  options: { env?: Record<string, string>; plugins?: FastifyPluginAsync[]; captureLogs?: boolean } = {},
): Promise<LiveApp> {
  for (let tries = 0; ; tries++) {
    const port = candidatePort()
    const base = `http://127.0.0.1:${port}`
    const { app, logs } = await buildTestApp({
      env: { BASE_URL: base, ...options.env },
      plugins: options.plugins,
      captureLogs: options.captureLogs,
    })
    try {
      await app.listen({ port, host: '127.0.0.1' })
      return { app, base, logs }
    } catch (error) {
      await app.close()
      if (tries > 3) throw error
    }
  }
}

export interface Page {
  status: number
  headers: Headers
  location: string | null
  html: string
  $: cheerio.CheerioAPI
}

/**
 * A person's browser without JavaScript: keeps cookies, follows nothing by itself, submits the
 * forms it is shown with their hidden fields.
 */
export class Browser {
  readonly base: string
  readonly ip: string | undefined
  private readonly cookies = new Map<string, string>()
  /** Headers this browser sends with every request (Accept-Language). */
  private readonly headers: Record<string, string>

  constructor(base: string, options: { headers?: Record<string, string> } = {}) {
    this.base = base
    this.headers = options.headers ?? {}
  }

  /** The cookies this browser holds, to hand to a real browser (playwright's `addCookies`). */
  cookieList(): Array<{ name: string; value: string; url: string }> {
    return [...this.cookies].map(([name, value]) => ({ name, value, url: this.base }))
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  private async request(path: string, init: RequestInit): Promise<Page> {
    const url = new URL(path, this.base)
    const headers = new Headers({ ...this.headers, ...Object.fromEntries(new Headers(init.headers)) })
    if (this.cookies.size) headers.set('cookie', this.cookieHeader())
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const index = (pair ?? '').indexOf('=')
      if (index > 0) this.cookies.set(pair!.slice(0, index).trim(), pair!.slice(index + 1).trim())
    }
    const html = await response.text()
    return { status: response.status, headers: response.headers, location: response.headers.get('location'), html, $: cheerio.load(html) }
  }

  get(path: string): Promise<Page> {
    return this.request(path, { method: 'GET' })
  }

  post(path: string, form: Record<string, string>): Promise<Page> {
    return this.request(path, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
  }

  /** Submits the page's form (the one whose action matches, or the first) with `fields` filled in and the button `submit` pressed; a select sends its selected option. */
  submit(page: Page, fields: Record<string, string> = {}, options: { action?: string; button?: [string, string] } = {}): Promise<Page> {
    const form = options.action ? page.$(`form[action="${options.action}"]`) : page.$('form').first()
    if (!form.length) throw new Error(`no form on the page: ${page.html.slice(0, 500)}`)
    const values: Record<string, string> = {}
    form.find('input[name]').each((_i, el) => {
      const input = page.$(el)
      values[input.attr('name') as string] = input.attr('value') ?? ''
    })
    // A select sends its selected option, else its first, as a browser does.
    form.find('select[name]').each((_i, el) => {
      const select = page.$(el)
      const option = select.find('option[selected]').first().length
        ? select.find('option[selected]').first()
        : select.find('option').first()
      values[select.attr('name') as string] = option.attr('value') ?? option.text()
    })
    Object.assign(values, fields)
    if (options.button) values[options.button[0]] = options.button[1]
    return this.post(form.attr('action') as string, values)
  }

  /** Follows redirects within this origin; stops at the first page or at a redirect elsewhere. */
  async follow(page: Page): Promise<Page> {
    let current = page
    for (let i = 0; i < 10 && current.status >= 300 && current.status < 400 && current.location; i++) {
      const target = new URL(current.location, this.base)
      if (target.origin !== new URL(this.base).origin) return current
      current = await this.get(target.pathname + target.search)
    }
    return current
  }

  /** Signs in by email through the pages, reading the code from the outbox; returns the page after sign-in. */
  async signIn(app: FastifyInstance, email: string, from: Page): Promise<Page> {
    const form = await this.follow(from)
    const sent = await this.follow(await this.submit(form, { email }))
    const code = await latestCode(app, email)
    return this.follow(await this.submit(sent, { code }))
  }
}

/** oauth4webapi's option for the plain-http loopback origin the tests listen on. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const

/** The service's authorization server as oauth4webapi discovers it, and a public client registered there (RFC 7591). */
export async function registeredClient(
  base: string,
  clientName: string,
  redirectUri: string,
): Promise<{ as: oauth.AuthorizationServer; client: oauth.Client }> {
  const issuer = new URL(base)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
  const client = (await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: clientName, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
      insecure,
    ),
  )) as oauth.Client
  return { as, client }
}

/** The newest sign-in code mailed to `email` (the outbox, since SMTP_URL is not set). */
export async function latestCode(app: FastifyInstance, email: string): Promise<string> {
  const [mail] = await readOutbox(app.db, app.keyring, email)
  const code = mail ? /\b(\d{6})\b/.exec(mail.text)?.[1] : undefined
  if (!code) throw new Error(`no sign-in code mailed to ${email}`)
  return code
}

export function form(values: Record<string, string>): { body: string; headers: Record<string, string> } {
  return { body: new URLSearchParams(values).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } }
}

/** A fetch response's JSON body, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function json(response: Response): Promise<any> {
  return response.json()
}
