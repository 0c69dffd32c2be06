import { readdirSync, readFileSync } from 'node:fs'
import { setPriority } from 'node:os'

/** The nice value of the threads that do background work: below the event loop's 0, so it comes first. */
export const WORKER_NICE = 10

/** The names Linux gives the threads that run libuv's pool (libuv ≥ 1.45 names them so). */
const POOL_THREAD = 'libuv-worker'

/**
 * Lowers the scheduling priority of libuv's thread pool on Linux, where a priority belongs to each
 * thread and a thread starts with its creator's: so the libvips threads the pool starts for image
 * processing run at the same lower priority. Processing a photo keeps every core busy for a
 * second; at the same priority, the event loop would wait for a core behind it and every page
 * answered meanwhile would wait too. With the pool below it, the event loop gets a core when it
 * has work and the pool gets everything else. Answers whether the pool's threads were found (it
 * starts on its first use, so a caller tries again until they were); elsewhere (no /proc) false.
 */
export function lowerPoolPriority(nice = WORKER_NICE): boolean {
  let tasks: string[]
  try {
    tasks = readdirSync('/proc/self/task')
  } catch {
    return false
  }
  let found = false
  for (const task of tasks) {
    const tid = Number(task)
    if (tid === process.pid) continue
    let name: string
    try {
      name = readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim()
    } catch {
      continue // the thread has ended
    }
    if (name !== POOL_THREAD) continue
    found = true
    try {
      // On Linux setpriority(2) with a thread's id sets that thread's priority alone.
      setPriority(tid, nice)
    } catch {
      // Lowering one's own priority is always allowed; a thread that ended meanwhile is no loss.
    }
  }
  return found
}
