/**
 * A CSV field (RFC 4180): quoted when it holds a quote, comma or line break; a value a
 * spreadsheet would run as a formula (= + - @, tab, carriage return) is prefixed with a quote.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** A whole CSV file: the header line, then one line per row, CRLF line ends (RFC 4180). */
export function csvTable(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  return [header, ...rows].map((row) => row.map((cell) => csvField(String(cell))).join(',')).join('\r\n') + '\r\n'
}
