import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'
import { cleanUpAfter } from './cleanup.ts'

/**
 * An S3 server on loopback (s3rver: the real S3 REST protocol over files in a temporary folder), closed after the test file.
 * `keysIn(prefix)` lists the bucket's keys under a prefix, sorted, through the AWS SDK.
 */
export async function startS3Server(
  bucket: string,
): Promise<{ endpoint: string; env: Record<string, string>; keysIn: (prefix: string) => Promise<string[]> }> {
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
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  })
  const keysIn = async (prefix: string) => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))
    return (listed.Contents ?? []).map((o) => o.Key!).sort()
  }
  return { endpoint, env: { MEDIA_S3_BUCKET: bucket, MEDIA_S3_ENDPOINT: endpoint, MEDIA_S3_REGION: 'us-east-1' }, keysIn }
}
