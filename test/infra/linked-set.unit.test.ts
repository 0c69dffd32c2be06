import { describe, expect, it } from 'vitest'
import { LinkedSet } from '../../src/infra/linked-set.ts'

describe('LinkedSet', () => {
  it('lists its values oldest first, without those taken out wherever they stood', () => {
    const set = new LinkedSet<string>()
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((value) => set.add(value))
    set.remove(c!)
    set.remove(a!)
    expect(set.size).toBe(2)
    expect(set.values()).toEqual(['b', 'd'])
    set.remove(d!)
    set.remove(b!)
    expect(set.size).toBe(0)
    expect(set.values()).toEqual([])
    set.add('e')
    expect(set.values()).toEqual(['e'])
  })

  it('ignores a second removal, and a removed entry holds on to no neighbour', () => {
    const set = new LinkedSet<number>()
    const first = set.add(1)
    const second = set.add(2)
    const third = set.add(3)
    set.remove(second)
    set.remove(second)
    expect(set.size).toBe(2)
    expect([second.set, second.prev, second.next]).toEqual([undefined, undefined, undefined])
    expect(first.next).toBe(third)
    expect(third.prev).toBe(first)
    set.remove(first)
    set.remove(first)
    expect(set.size).toBe(1)
    expect(set.values()).toEqual([3])
  })

  it('leaves alone an entry of another set', () => {
    const one = new LinkedSet<string>()
    const other = new LinkedSet<string>()
    const a = one.add('a')
    one.add('b')
    const c = other.add('c')
    one.remove(c)
    other.remove(a)
    expect(one.values()).toEqual(['a', 'b'])
    expect(other.values()).toEqual(['c'])
    // An entry moved from one set to another, as a job giving its slot back is.
    one.remove(a)
    const moved = other.add(a.value)
    expect(one.values()).toEqual(['b'])
    expect(other.values()).toEqual(['c', 'a'])
    moved.set?.remove(moved)
    expect(other.values()).toEqual(['c'])
  })

  it('lets a value remove itself while the caller goes through them', () => {
    const set = new LinkedSet<() => void>()
    const called: number[] = []
    for (const n of [1, 2, 3]) {
      const entry = set.add(() => {
        set.remove(entry)
        called.push(n)
      })
    }
    for (const fail of set.values()) fail()
    expect(called).toEqual([1, 2, 3])
    expect(set.size).toBe(0)
  })
})
