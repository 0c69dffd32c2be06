import { onTestFinished } from 'vitest'

const pending: Array<() => unknown> = []

/**
 * Runs `cleanUp` when the scope that asked for the resource ends: after the test when called inside
 * one, else (while the file is collected, or in a beforeAll) after the file, last in, first out.
 * Test files share a worker (isolate: false), so a hook registered with `afterAll` from inside a
 * running test or hook would never run, and what it should free (an app's pool, a server process,
 * a database) would live on through every later file of the worker.
 */
export function cleanUpAfter(cleanUp: () => unknown): void {
  try {
    onTestFinished(async () => {
      await cleanUp()
    })
  } catch {
    pending.push(cleanUp)
  }
}

/** Called once after each test file (test/setup/cleanup.ts). */
export async function cleanUpFile(): Promise<void> {
  for (let next = pending.pop(); next; next = pending.pop()) await next()
}
