import fastJsonStringify from 'fast-json-stringify'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Build, Site } from '../../src/domain/sites/views.ts'
import { buildSerializer, nullableAsTypeList } from '../../src/infra/serializer.ts'

const ListOfSites = Type.Object({ data: Type.Array(Site), meta: Type.Object({ total: Type.Integer() }) })

const site = (i: number, live: boolean) => ({
  id: `site_${i}`,
  name: `Bakery "${i}" <b>`,
  domain: live ? `bakery${i}.example` : null,
  subdomain: `bakery-${i}.sites.example`,
  status: live ? 'live' : 'draft',
  default_locale: 'en',
  locales: ['en', 'fr'],
  assistant: { enabled: live, persona: live ? 'Warm and brief' : null, booking_url: null, lead: true, handoff: false },
  theme: { preset: 'fresh', brand_color: '#0b57d0', font_pair: 'system', corners: 'soft' },
  logo_media_id: live ? `med_logo${i}abcdefgh` : null,
  navigation: live ? [{ page: '/menu', label: 'Menu & "prices"', children: [{ url: 'https://example.com/', label: 'Elsewhere' }] }] : null,
  preview_url: `https://app.example/s/site_${i}/`,
  url: live ? `https://bakery${i}.example/` : null,
  created_at: new Date(Date.UTC(2026, 0, i + 1)),
  updated_at: '2026-02-01T10:00:00.000Z',
  published_at: live ? new Date(Date.UTC(2026, 1, i + 1)) : null,
})

describe('response serialisers', () => {
  it('see a nullable value as a type list, keeping its keywords, and leave other choices and the schema given alone', () => {
    const schema = Type.Object({
      when: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When' }),
      count: Type.Union([Type.Null(), Type.Integer({ minimum: 0 })]),
      either: Type.Union([Type.String(), Type.Integer()]),
      three: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
      nested: Type.Array(Type.Object({ note: Type.Union([Type.String(), Type.Null()]) })),
      // Properties named like keywords are schemas all the same.
      default: Type.Union([Type.String(), Type.Null()]),
      enum: Type.Union([Type.Integer(), Type.Null()]),
    })
    const before = JSON.stringify(schema)
    const rewritten = nullableAsTypeList(schema) as {
      properties: Record<string, Record<string, unknown> & { items?: { properties: Record<string, unknown> } }>
    }
    expect(rewritten.properties['when']).toEqual({ type: ['string', 'null'], format: 'date-time', description: 'When' })
    expect(rewritten.properties['count']).toEqual({ type: ['integer', 'null'], minimum: 0 })
    expect(rewritten.properties['either']).toHaveProperty('anyOf')
    expect(rewritten.properties['three']).toHaveProperty('anyOf')
    expect(rewritten.properties['nested']!.items!.properties['note']).toEqual({ type: ['string', 'null'] })
    expect(rewritten.properties['default']).toEqual({ type: ['string', 'null'] })
    expect(rewritten.properties['enum']).toEqual({ type: ['integer', 'null'] })
    expect(JSON.stringify(schema)).toBe(before)
  })

  it('write the same bytes as fast-json-stringify on the schemas as declared: nulls, dates, escapes, dropped extra fields', () => {
    const serialize = buildSerializer({}, {})({ schema: ListOfSites })
    const reference = fastJsonStringify(ListOfSites as never)
    const lists = [
      { data: [], meta: { total: 0 } },
      { data: Array.from({ length: 6 }, (_, i) => ({ ...site(i, i % 2 === 0), internal_secret: 'never shown' })), meta: { total: 6 } },
    ]
    for (const list of lists) {
      const written = serialize(list)
      expect(written).toBe(reference(list))
      expect(written).not.toContain('never shown')
    }
    const build = {
      id: 'bld_1',
      site_id: 'site_1',
      status: 'failed',
      error: 'No pages',
      pages: null,
      started_at: new Date(0),
      finished_at: null,
    }
    expect(buildSerializer({}, {})({ schema: Build })(build)).toBe(fastJsonStringify(Build as never)(build))
  })

  it('still refuse a value of another type than the schema allows', () => {
    const serialize = buildSerializer({}, {})({ schema: Type.Object({ count: Type.Union([Type.Integer(), Type.Null()]) }) })
    expect(serialize({ count: null })).toBe('{"count":null}')
    expect(() => serialize({ count: 'many' })).toThrow(TypeError)
  })
})

describe('compiled once per process', () => {
  it('gives an app built later the serialiser of an equal schema, and another schema its own', () => {
    const first = buildSerializer({}, undefined)({ schema: Type.Object({ name: Type.String(), total: Type.Integer() }) })
    const again = buildSerializer({}, undefined)({ schema: Type.Object({ name: Type.String(), total: Type.Integer() }) })
    const other = buildSerializer({}, undefined)({ schema: Type.Object({ name: Type.String() }) })
    expect(again).toBe(first)
    expect(other).not.toBe(first)
    expect(first({ name: 'Bakery', total: 2, extra: true })).toBe('{"name":"Bakery","total":2}')
    expect(other({ name: 'Bakery', total: 2 })).toBe('{"name":"Bakery"}')
  })
})
