import { randomInt } from 'node:crypto'

/** RFC 8628 section 6.1: consonants only, no look-alikes, no accidental words. */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ'

/** A user code of 8 letters shown as XXXX-XXXX (about 34 bits). */
export function newUserCode(): string {
  let code = ''
  for (let i = 0; i < 8; i++) code += ALPHABET[randomInt(ALPHABET.length)]
  return `${code.slice(0, 4)}-${code.slice(4)}`
}

/** What a person typed, reduced to the 8 letters; undefined when it cannot be a user code. */
export function normaliseUserCode(input: string): string | undefined {
  const letters = input.toUpperCase().replace(/[\s-]/g, '')
  return letters.length === 8 && [...letters].every((c) => ALPHABET.includes(c)) ? letters : undefined
}
