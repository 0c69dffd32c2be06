import { existsSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// No container engine runs here: the image's contents are read from the Dockerfile and .dockerignore.
const root = fileURLToPath(new URL('..', import.meta.url))
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

/** The context paths the final stage copies (COPY lines without --from), and what .dockerignore leaves out. */
function imageContents() {
  const lines = read('Dockerfile').replace(/\\\n/g, ' ').split('\n')
  const finalStage = lines.slice(lines.findLastIndex((line) => /^FROM\s/i.test(line)))
  const copied = finalStage
    .filter((line) => /^COPY\s/i.test(line) && !/--from=/.test(line))
    .flatMap((line) =>
      line
        .trim()
        .split(/\s+/)
        .slice(1)
        .filter((arg) => !arg.startsWith('--'))
        .slice(0, -1),
    )
    .map((source) => source.replace(/^\.\//, '').replace(/\/$/, ''))
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim().replace(/\/$/, ''))
    .filter((line) => line && !line.startsWith('#'))
  const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)
  return (path: string) => copied.some((source) => under(path, source)) && !ignored.some((pattern) => under(path, pattern))
}

interface Graph {
  files: Set<string>
  packages: Set<string>
}

/**
 * Every file a script loads: its relative imports (type-only ones are erased), `await import()` of a
 * literal, and files it reads at `new URL('<literal>', import.meta.url)`; with the packages it imports.
 */
function loadGraph(entry: string): Graph {
  const graph: Graph = { files: new Set(), packages: new Set() }
  const visit = (path: string) => {
    if (graph.files.has(path)) return
    graph.files.add(path)
    if (!path.endsWith('.ts')) return
    const source = read(path)
    const specifiers = [
      ...[...source.matchAll(/^(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'/gms)].map((m) => m[1]!),
      ...[...source.matchAll(/^import\s+'([^']+)'/gm)].map((m) => m[1]!),
      ...[...source.matchAll(/await import\('([^']+)'\)/g)].map((m) => m[1]!),
    ]
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) visit(relative(root, resolve(root, dirname(path), specifier)))
      else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier))
        graph.packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!)
    }
    for (const m of source.matchAll(/new URL\('([^'$]+)', import\.meta\.url\)/g)) {
      const target = relative(root, resolve(root, dirname(path), m[1]!))
      if (existsSync(join(root, target))) graph.files.add(target)
    }
  }
  visit(entry)
  return graph
}

/** `[exec] node [flags] file.ts` scripts of package.json, by name. */
const nodeScripts = Object.entries(pkg.scripts).flatMap(([name, command]) => {
  const file = /^(?:exec\s+)?node\s+(?:--\S+\s+)*(\S+\.ts)\b/.exec(command)?.[1]
  return file ? [{ name, file, graph: loadGraph(file) }] : []
})

/** Development tools, not run in the image: `openapi` rewrites the checked-in description, `bench` and `bench:*` need autocannon. */
const isDevelopmentScript = (name: string) => name === 'openapi' || name === 'bench' || name.startsWith('bench:')

describe('the container image', () => {
  it('holds every other npm script, with all it imports and reads, on production dependencies', () => {
    const inImage = imageContents()
    const operated = nodeScripts.filter(({ name }) => !isDevelopmentScript(name))
    expect(operated.map((s) => s.name)).toEqual(expect.arrayContaining(['start', 'migrate', 'outbox', 'admin']))
    for (const { name, graph } of operated) {
      const missing = [...graph.files].filter((file) => !inImage(file))
      expect(missing, `npm run ${name} needs these files, which the image lacks`).toEqual([])
      const devPackages = [...graph.packages].filter((p) => !(p in pkg.dependencies))
      expect(devPackages, `npm run ${name} imports packages the image does not install`).toEqual([])
    }
  })

  it('leaves out the development tools only', () => {
    const needDevPackages = nodeScripts.filter(({ graph }) => [...graph.packages].some((p) => !(p in pkg.dependencies))).map((s) => s.name)
    expect(needDevPackages.filter((name) => !isDevelopmentScript(name))).toEqual([])
    for (const name of ['openapi', 'bench']) expect(pkg.scripts[name], name).toBeDefined()
  })
})
