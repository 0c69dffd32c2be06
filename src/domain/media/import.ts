import { errors } from '../../errors.ts'
import { createSafeFetcher, FetchError, type SafeFetcher } from '../../infra/fetcher.ts'
import { MAX_UPLOAD_BYTES } from './images.ts'

/**
 * An image imported from a web address (MCP import_media, GraphQL importMedia; DESIGN.md 14):
 * fetched through the SSRF-safe fetcher, with the upload's limits, then stored like an upload.
 */

let fetcher: SafeFetcher | undefined
let fetcherPolicy: boolean | undefined
/** The fetcher of imports, made on first use with the service's outbound policy. */
function importFetcher(allowPrivateNetworks: boolean): SafeFetcher {
  if (!fetcher || fetcherPolicy !== allowPrivateNetworks) {
    fetcher = createSafeFetcher({ allowPrivateNetworks, timeoutMs: 20_000, maxBytes: MAX_UPLOAD_BYTES, maxRedirects: 3 })
    fetcherPolicy = allowPrivateNetworks
  }
  return fetcher
}

/** The bytes at a URL a client named: https only (http too where private networks are allowed, in tests), at most 20 MB. */
export async function fetchImage(
  config: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: boolean },
  url: string,
): Promise<{ bytes: Buffer; filename: string | undefined }> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new errors.validationFailed('url must be an absolute https:// address')
  }
  const allowHttp = config.OUTBOUND_ALLOW_PRIVATE_NETWORKS
  if (parsed.protocol !== 'https:' && !(allowHttp && parsed.protocol === 'http:')) {
    throw new errors.validationFailed('url must be an https:// address')
  }
  try {
    const answer = await importFetcher(allowHttp).fetch(parsed.href, { headers: { accept: 'image/*' } })
    if (answer.status !== 200) throw new errors.unprocessable(`The address answered ${answer.status}, not an image`)
    const name = decodeURIComponent(new URL(answer.url).pathname.split('/').pop() ?? '') || undefined
    return { bytes: answer.body, filename: name }
  } catch (error) {
    if (error instanceof FetchError) {
      if (error.code === 'too_large') throw new errors.payloadTooLarge('The file is larger than 20 MB')
      throw new errors.unprocessable(`The image could not be fetched: ${error.message}`)
    }
    throw error
  }
}
