import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { generateOpenApi } from '../src/openapi-document.ts'

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with public description version 1.1.0', async () => {
    const doc = JSON.parse(await generateOpenApi())
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.1.0')
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/ready', '/api/pricing', '/.well-known/jwks.json']))
    expect(doc.paths['/api/pricing'].get.responses['200']).toBeDefined()
  })

  it('checked-in copy under openapi/ is current (run `npm run openapi` after changing a route)', async () => {
    const checkedIn = readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8')
    expect(checkedIn).toBe(await generateOpenApi())
  })
})
