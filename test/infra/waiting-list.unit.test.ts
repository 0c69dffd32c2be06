import { describe, expect, it } from 'vitest'
import { WaitingList } from '../../src/infra/waiting-list.ts'

describe('WaitingList', () => {
  const named = (name: string, into: string[]) => () => void into.push(name)

  it('lists its waiters oldest first, without those taken out wherever they stood', () => {
    const list = new WaitingList()
    const called: string[] = []
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => list.add(named(name, called)))
    list.remove(c!)
    list.remove(a!)
    expect(list.size).toBe(2)
    for (const fail of list.all()) fail(new Error('away'))
    expect(called).toEqual(['b', 'd'])
    list.remove(d!)
    list.remove(b!)
    expect(list.size).toBe(0)
    expect(list.all()).toEqual([])
  })

  it('ignores a second removal, and a removed entry holds on to no neighbour', () => {
    const list = new WaitingList()
    const first = list.add(() => {})
    const second = list.add(() => {})
    const third = list.add(() => {})
    list.remove(second)
    list.remove(second)
    expect(list.size).toBe(2)
    expect(second.prev).toBeUndefined()
    expect(second.next).toBeUndefined()
    expect(first.next).toBe(third)
    expect(third.prev).toBe(first)
    list.remove(first)
    list.remove(first)
    expect(list.size).toBe(1)
    expect(list.all()).toEqual([third.fail])
  })

  it('lets a waiter remove itself while all of them are being failed', () => {
    const list = new WaitingList()
    const failed: number[] = []
    const entries = [1, 2, 3].map((n) => {
      const entry = list.add(() => {
        list.remove(entry)
        failed.push(n)
      })
      return entry
    })
    for (const fail of list.all()) fail(new Error('away'))
    expect(failed).toEqual([1, 2, 3])
    expect(list.size).toBe(0)
    expect(entries.every((e) => e.prev === undefined && e.next === undefined)).toBe(true)
  })
})
