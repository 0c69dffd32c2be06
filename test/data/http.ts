import { expect } from 'vitest'

/** A /v1 client over real HTTP for one bearer: JSON in, status, headers and parsed body out. */
export function httpClient(base: string, authorization: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: 'manual',
    })
    const text = await res.text()
    let json: any // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, text, json }
  }
}

export type HttpAnswer = Awaited<ReturnType<ReturnType<typeof httpClient>>>

/** A problem+json answer with this status and code, with nothing of the validator or the driver in it. */
export function expectProblem(res: HttpAnswer, status: number, code: string) {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toContain('application/problem+json')
  expect(res.json.code, res.text).toBe(code)
  expect(res.text).not.toMatch(/anyOf|instancePath|duplicate key|violates|constraint|at .*\.ts:/)
}

/** A dashboard browser over real HTTP without JavaScript: a cookie jar, GETs, and form posts with the page's CSRF token. */
export function formBrowser(base: string, cookie: string) {
  const jar = new Map<string, string>(cookie.split('; ').map((c) => c.split('=') as [string, string]))
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      jar.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
  }
  let token = ''
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { cookie: header() }, redirect: 'manual' })
    keep(res)
    const body = await res.text()
    token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? token
    return { status: res.status, body, location: res.headers.get('location') }
  }
  const post = async (path: string, form: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, ...form }).toString(),
      redirect: 'manual',
    })
    keep(res)
    return { status: res.status, body: await res.text(), location: res.headers.get('location') }
  }
  return { get, post }
}
