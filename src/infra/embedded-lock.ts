import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

/**
 * The embedded database is a set of files one process opens: a second process (the admin CLI, the
 * outbox, another server) writing the same files beside it loses its writes or damages the other's.
 * So the first process to open a data directory holds a lock file there, naming its pid; another
 * refuses to open it while that process lives. A lock left by a process that died without removing
 * it (a crash, SIGKILL) is taken over, since its pid no longer runs.
 */

interface Holder {
  pid: number
  command: string
  since: string
}

export class EmbeddedDatabaseInUseError extends Error {
  constructor(dir: string, lockPath: string, holder: Holder) {
    super(
      `the embedded database in ${dir} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}). ` +
        `Stop that process first, or use PostgreSQL (DATABASE_URL). If no such process runs, remove ${lockPath}.`,
    )
    this.name = 'EmbeddedDatabaseInUseError'
  }
}

const LOCK_FILE = 'embedded.lock'
/** Locks this process holds: a second open in the same process is refused too. */
const heldHere = new Map<string, Holder>()

function readHolder(path: string): { text: string; holder: Holder | undefined } | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    const holder = JSON.parse(text) as Holder
    return { text, holder: Number.isInteger(holder.pid) ? holder : undefined }
  } catch {
    // Damaged: no process can be named as its holder.
    return { text, holder: undefined }
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the lock of a data directory for this process; answers the function that gives it back. */
export function lockDataDir(dir: string): () => void {
  const lockPath = join(resolve(dir), LOCK_FILE)
  const mine: Holder = { pid: process.pid, command: basename(process.argv[1] ?? process.argv0), since: new Date().toISOString() }
  const text = JSON.stringify(mine)
  const ours = heldHere.get(lockPath)
  if (ours) throw new EmbeddedDatabaseInUseError(resolve(dir), lockPath, ours)
  // Written aside and linked into place, so the lock file is never seen half-written.
  const draft = `${lockPath}.${process.pid}`
  writeFileSync(draft, text)
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draft, lockPath)
        heldHere.set(lockPath, mine)
        return holdLock(lockPath, text)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      takeOverIfStale(dir, lockPath)
    }
  } finally {
    unlinkSync(draft)
  }
  throw new Error(`could not take the lock ${lockPath} of the embedded database`)
}

function holdLock(lockPath: string, text: string): () => void {
  let held = true
  const release = () => {
    if (!held) return
    held = false
    heldHere.delete(lockPath)
    process.off('exit', release)
    // Only our own lock: never one another process took over meanwhile.
    if (readHolder(lockPath)?.text === text) unlinkSync(lockPath)
  }
  process.on('exit', release)
  return release
}

/** Removes a lock whose process no longer runs; throws when it runs. */
function takeOverIfStale(dir: string, lockPath: string): void {
  const found = readHolder(lockPath)
  if (!found) return
  // A pid equal to ours is a lock from before a restart that reused it (pid 1 in a container).
  if (found.holder && found.holder.pid !== process.pid && running(found.holder.pid))
    throw new EmbeddedDatabaseInUseError(resolve(dir), lockPath, found.holder)
  // Removed only while it still reads the same, so a lock another process has just taken over stays.
  if (readHolder(lockPath)?.text !== found.text) return
  try {
    unlinkSync(lockPath)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
