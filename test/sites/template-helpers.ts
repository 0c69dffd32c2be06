import { request as httpRequest } from 'node:http'
import type { TestAccount } from '../rest/helpers.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** Calls /v1 as the account, JSON in and out. */
export function api(base: string, account: TestAccount) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...account.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, json: (text ? JSON.parse(text) : null) as Json }
  }
}

export function hostGet(base: string, host: string, path: string) {
  const port = Number(new URL(base).port)
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

export const BAKERY = {
  type: 'bakery',
  name: 'Boulangerie Martin',
  city: 'Lyon',
  phone: '+33 4 78 00 00 00',
  email: 'bonjour@martin.example',
  address: '12 rue Mercière',
  postal_code: '69002',
  opening_hours: {
    items: [
      { day: 'tuesday', opens: '07:00', closes: '19:00' },
      { day: 'saturday', opens: '07:00', closes: '13:00' },
    ],
  },
}
