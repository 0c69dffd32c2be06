import { readdirSync, readFileSync } from 'node:fs'
import { setPriority } from 'node:os'

/** The nice value of the threads that process photos: below the event loop's 0, so it comes first. */
export const IMAGE_THREAD_NICE = 10

/** The name libvips gives the threads that compute an image's pixels. */
const IMAGE_THREAD = 'libvips worker'

/**
 * Lowers the scheduling priority of libvips' worker threads, on Linux, where a priority belongs
 * to each thread. Processing a photo keeps every core busy for about a second, and nearly all of
 * it (six sevenths, measured) runs on these threads; at the event loop's priority, the event loop
 * waited for a core behind them and every page answered meanwhile waited too. Below it, the event
 * loop gets a core whenever it has work and the photo gets the rest. libuv's own pool, which also
 * reads files, looks up names and hashes passwords for the event loop, keeps its priority: a
 * request waiting on it must not wait behind every other process of the machine.
 *
 * libvips starts its threads as a processing needs them and keeps them for the next one, so this
 * is called around each processing (reading /proc/self/task, a fraction of a millisecond); the
 * few threads a first processing starts run at the usual priority until it calls this again.
 * Elsewhere than on Linux (no /proc/self/task) it does nothing.
 */
export function lowerImageThreads(nice = IMAGE_THREAD_NICE): void {
  let tasks: string[]
  try {
    tasks = readdirSync('/proc/self/task')
  } catch {
    return
  }
  for (const task of tasks) {
    try {
      if (readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trimEnd() !== IMAGE_THREAD) continue
      // setpriority(2) with a thread's id sets that thread's priority alone.
      setPriority(Number(task), nice)
    } catch {
      // The thread ended meanwhile; lowering one's own priority is otherwise always allowed.
    }
  }
}
