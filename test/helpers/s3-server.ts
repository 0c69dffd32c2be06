import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'
import { cleanUpAfter } from './cleanup.ts'

/** An S3 server on loopback (s3rver: the real S3 REST protocol over files in a temporary folder), closed after the test file. */
export async function startS3Server(bucket: string): Promise<{ endpoint: string; env: Record<string, string> }> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'))
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] })
  const address = (await server.run()) as { port: number }
  cleanUpAfter(async () => {
    await server.close()
    rmSync(directory, { recursive: true, force: true })
  })
  const endpoint = `http://127.0.0.1:${address.port}`
  // s3rver's fixed credentials, read by the SDK from the usual AWS variables as in production.
  process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER'
  process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER'
  return { endpoint, env: { MEDIA_S3_BUCKET: bucket, MEDIA_S3_ENDPOINT: endpoint, MEDIA_S3_REGION: 'us-east-1' } }
}
