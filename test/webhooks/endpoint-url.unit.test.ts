import { afterAll, describe, expect, it } from 'vitest'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { checkEndpointUrl } from '../../src/domain/webhooks/endpoint-url.ts'

const production = { requireHttps: true, allowPrivateNetworks: false }
const development = { requireHttps: false, allowPrivateNetworks: true }
const publicFetcher = createSafeFetcher()
const privateFetcher = createSafeFetcher({ allowPrivateNetworks: true })
afterAll(async () => {
  await publicFetcher.close()
  await privateFetcher.close()
})

async function refusal(url: string, policy = production, fetcher = publicFetcher) {
  const error = await checkEndpointUrl(url, policy, fetcher).then(
    () => undefined,
    (e: unknown) => e as { code: string; statusCode: number; message: string },
  )
  return error && { code: error.code.toLowerCase(), status: error.statusCode, message: error.message }
}

describe('webhook endpoint URLs', () => {
  it('refuses, in production, anything but https on the public internet', async () => {
    const cases: Array<[string, RegExp]> = [
      ['http://example.com/hook', /https/],
      ['ftp://example.com/hook', /https/],
      ['not a url', /valid absolute URL/],
      ['https://user:secret@example.com/hook', /user information/],
      ['https://example.com:8443/hook', /port/],
      ['https://127.0.0.1/hook', /public internet/],
      ['https://localhost/hook', /public internet/],
      ['https://10.1.2.3/hook', /public internet/],
      ['https://[::1]/hook', /public internet/],
      ['https://169.254.169.254/latest/meta-data', /public internet/],
    ]
    for (const [url, message] of cases) {
      const refused = await refusal(url)
      expect(refused, url).toMatchObject({ code: 'invalid_webhook_url', status: 400 })
      expect(refused!.message, url).toMatch(message)
    }
  })

  it('accepts an https URL whose name does not resolve yet: each delivery checks it again', async () => {
    expect(await checkEndpointUrl('https://hooks.example.invalid/endpoint?x=1', production, publicFetcher)).toBe(
      'https://hooks.example.invalid/endpoint?x=1',
    )
  })

  it('names OUTBOUND_ALLOW_PRIVATE_NETWORKS outside production when it would allow the URL, never in production', async () => {
    const plainDevelopment = { requireHttps: false, allowPrivateNetworks: false }
    for (const url of ['http://127.0.0.1:4555/hook', 'http://127.0.0.1/hook', 'http://localhost:4555/hook', 'https://10.1.2.3/hook']) {
      const refused = await refusal(url, plainDevelopment)
      expect(refused, url).toMatchObject({ code: 'invalid_webhook_url', status: 400 })
      expect(refused!.message, url).toMatch(/OUTBOUND_ALLOW_PRIVATE_NETWORKS=true/)
    }
    expect((await refusal('http://127.0.0.1:4555/hook', plainDevelopment))!.message).toMatch(
      /^The url must not name a port; use the default http port; /,
    )
    for (const url of ['https://127.0.0.1:4555/hook', 'https://10.1.2.3/hook'])
      expect((await refusal(url))!.message, url).not.toMatch(/OUTBOUND_ALLOW_PRIVATE_NETWORKS/)
    // Already on: the metadata address stays refused, and no setting is suggested.
    expect((await refusal('http://169.254.169.254/', development, privateFetcher))!.message).not.toMatch(/OUTBOUND_ALLOW_PRIVATE_NETWORKS/)
  })

  it('lets development reach loopback over http, but never the metadata address', async () => {
    expect(await checkEndpointUrl('http://127.0.0.1:8080/hook', development, privateFetcher)).toBe('http://127.0.0.1:8080/hook')
    expect(await refusal('http://169.254.169.254/', development, privateFetcher)).toMatchObject({ code: 'invalid_webhook_url' })
  })
})
