import { randomInt } from 'node:crypto'

/** A six-digit one-time sign-in code. */
export function newSignInCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

/** What a person typed as a sign-in code, as its six digits (spaces and hyphens dropped), or undefined where it cannot be one. */
export function readSignInCode(input: string): string | undefined {
  const digits = input.replace(/[\s-]/g, '')
  return /^[0-9]{6}$/.test(digits) ? digits : undefined
}
