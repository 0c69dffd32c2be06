import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { isoTimestamptz, parseTimestamptz } from '../../src/infra/pg-timestamps.ts'

const driverParse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null
const FIRST = Date.UTC(101, 0, 1)
const LAST = Date.UTC(9998, 0, 1)
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** An instant as PostgreSQL writes a timestamptz under DateStyle ISO, in a zone `offset` seconds east. */
function pgText(ms: number, micros: number, digits: number, offset: number): string {
  const local = new Date(ms + offset * 1000)
  const fraction = digits ? `.${pad(local.getUTCMilliseconds() * 1000 + micros, 6).slice(0, digits)}` : ''
  const abs = Math.abs(offset)
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600))}${abs % 3600 ? `:${pad(Math.floor((abs % 3600) / 60))}` : ''}${abs % 60 ? `:${pad(abs % 60)}` : ''}`
  return `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${zone}`
}

const same = (text: string) => {
  const ours = parseTimestamptz(text)
  const driver = driverParse(text)
  expect(ours instanceof Date ? ours.getTime() : ours, text).toEqual(driver instanceof Date ? driver.getTime() : driver)
}

describe('timestamptz as the pool reads it', () => {
  it('gives the instant the driver gives for 20,000 random times of the years 101 to 9998, fractions of 0 to 6 digits and offsets of hours, minutes and seconds', () => {
    const offsets = [0, 3600, -18_000, 19_800, -12_600, 20_700, 1172, -2670, 50_400, -43_200]
    let seed = 7
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 20_000; i++) {
      // From the year 101 to 9998, to the millisecond.
      const ms = Math.floor(FIRST + random() * (LAST - FIRST)) + Math.floor(random() * 1000)
      const text = pgText(ms, Math.floor(random() * 1000), i % 7, offsets[i % offsets.length]!)
      same(text)
      // Each of them is read by the fast path, not handed to the driver.
      expect(isoTimestamptz(text)?.getTime(), text).toBe((driverParse(text) as Date).getTime())
    }
  })

  it('leaves every other form to the driver: infinity, BC, years before 100 and after 9999, no offset, stray characters', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '2026-11-26 06:57:45+00 BC',
      '0050-03-01 12:00:00+00',
      '12026-11-26 06:57:45.5+00',
      '2026-11-26 06:57:45',
      '2026-11-26 06:57:45.+00',
      '2026-11-26T06:57:45+00',
      '2026-1x-26 06:57:45+00',
      '2026-11-26 06:57:45+0',
      '2026-11-26 06:57:45Z',
      '2026-11-26',
    ]) {
      same(text)
      expect(isoTimestamptz(text), text).toBeUndefined()
    }
  })

  it('reads the time PostgreSQL writes for now() to the millisecond', () => {
    expect((parseTimestamptz('2026-11-26 06:57:45.098978+00') as Date).toISOString()).toBe('2026-11-26T06:57:45.098Z')
    expect((parseTimestamptz('2026-11-26 01:27:45.5-05:30') as Date).toISOString()).toBe('2026-11-26T06:57:45.500Z')
    // Leap days and the turns of centuries, where a calendar of its own would slip.
    for (const text of [
      '2000-02-29 00:00:00+00',
      '1900-02-28 23:59:59.999999+00',
      '1900-03-01 00:00:00+00',
      '2100-03-01 00:00:00.000001-12',
      '1600-02-29 12:00:00+14',
      '0100-01-01 00:00:00+00',
    ]) {
      same(text)
      expect(isoTimestamptz(text), text).toBeInstanceOf(Date)
    }
  })
})
