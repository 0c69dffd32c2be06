/**
 * WCAG 2.2 colour contrast (success criteria 1.4.3 and 1.4.11): relative luminance of sRGB
 * colours and the ratio between two, and the darkening or lightening that brings a colour to a
 * ratio. Colours are `#rrggbb`.
 */

/** The ratio normal text needs against its background (AA). */
export const AA_TEXT = 4.5

function channels(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b]
    .map((c) =>
      Math.round(Math.min(255, Math.max(0, c)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`
}

/** Relative luminance, 0 (black) to 1 (white). */
export function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** The contrast ratio of two colours, 1 to 21, whichever is lighter. */
export function contrast(a: string, b: string): number {
  const [la, lb] = [luminance(a), luminance(b)]
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

/** The colour mixed towards black (amount 0..1). */
function darken(hex: string, amount: number): string {
  const [r, g, b] = channels(hex)
  return toHex([r * (1 - amount), g * (1 - amount), b * (1 - amount)])
}

/**
 * The colour itself when it already reaches `ratio` against `against`, else the least darkened
 * copy that does (found in steps of 1 %; black always does against a light background). Keeps the
 * hue, so a light brand colour stays recognisably the brand's.
 */
export function darkenedFor(hex: string, against: string, ratio = AA_TEXT): string {
  if (contrast(hex, against) >= ratio) return hex
  for (let step = 1; step <= 100; step++) {
    const candidate = darken(hex, step / 100)
    if (contrast(candidate, against) >= ratio) return candidate
  }
  return '#000000'
}
