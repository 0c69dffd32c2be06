/**
 * Waiting for what happens in the background (jobs, NOTIFY reaching a cache, batched audit
 * records), outside `expect.poll` where that is not allowed: the one polling helper of the suite.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it answers something truthy, and answers that; fails naming `what` after `timeoutMs`. */
export async function until<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`)
    await pause(25)
  }
}

/** Retries `check` until it passes, or throws its last failure once `withinMs` is over. */
export async function eventually(check: () => Promise<void>, withinMs = 1000): Promise<void> {
  const deadline = Date.now() + withinMs
  for (;;) {
    try {
      await check()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await pause(20)
    }
  }
}
