import { describe, it } from 'vitest'
import { expectLighthouseAtLeast95, haveChrome } from '../helpers/lighthouse.ts'
import { startLiveApp } from '../identity/helpers.ts'

describe.skipIf(!haveChrome)('the front door in Lighthouse', () => {
  it('scores at least 95 in performance, accessibility, best practices and SEO', { timeout: 180_000 }, async () => {
    const t = await startLiveApp({ env: { API_URL: 'http://api.front.test' } })
    await expectLighthouseAtLeast95(`${t.base}/`)
  })
})
