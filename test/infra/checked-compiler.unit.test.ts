import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Ajv } from 'ajv'
import { compiledOnce } from '../../src/infra/compiled-once.ts'
import { checkedCompiler } from '../../src/infra/unsafe-values.ts'

const Query = () =>
  Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })), q: Type.Optional(Type.String()) }, { additionalProperties: false })

describe('validators compiled once per process', () => {
  it('keeps each compiler’s own rules for an equal schema: text coerced by one, refused by the other', () => {
    const lenient = checkedCompiler(true)(Query())
    const strict = checkedCompiler(false)(Query())
    const text = { page: '2' }
    expect(lenient(text)).toBe(true)
    expect(text).toEqual({ page: 2 })
    expect(strict({ page: '2' })).toBe(false)
    expect(strict.errors?.[0]).toMatchObject({ keyword: 'type', instancePath: '/page' })
  })

  it('gives an app built later a validator of an equal schema that refuses the same input the same way, with its own errors', () => {
    const first = checkedCompiler(true)(Query())
    const later = checkedCompiler(true)(Query(), (data) => ({ ...(data as object), q: 'prepared' }))
    expect(first({ page: '0' })).toBe(false)
    expect(first.errors?.[0]).toMatchObject({ keyword: 'minimum', instancePath: '/page' })
    expect(later({ page: '3' })).toBe(true)
    expect(later.errors).toBeNull()
    expect(first.errors?.[0]).toMatchObject({ keyword: 'minimum' })
    expect(later({ page: '1', other: 1 })).toBe(false)
    expect(later.errors?.[0]).toMatchObject({ keyword: 'additionalProperties' })
  })

  it('still refuses, in what passed, a value the database cannot store', () => {
    const validate = checkedCompiler(true)(Query())
    expect(validate({ q: 'bread\u0000' })).toBe(false)
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'pattern', message: 'not storable' })
  })
})

describe('compiledOnce', () => {
  it('compiles an equal schema once under one name, and apart under another', () => {
    let instances = 0
    const make = (options: ConstructorParameters<typeof Ajv>[0]) => () => (instances++, new Ajv(options))
    const first = compiledOnce('test: defaults', make({ useDefaults: true }))
    const second = compiledOnce('test: defaults', make({ useDefaults: true }))
    const other = compiledOnce('test: no defaults', make({ useDefaults: false }))
    const schema = () => ({ type: 'object', properties: { locale: { type: 'string', default: 'en' } } })
    expect(second(schema())).toBe(first(schema()))
    expect(instances).toBe(1)
    const withDefault: Record<string, unknown> = {}
    const without: Record<string, unknown> = {}
    expect(first(schema())(withDefault) && other(schema())(without)).toBe(true)
    expect(withDefault).toEqual({ locale: 'en' })
    expect(without).toEqual({})
    expect(instances).toBe(2)
  })
})
