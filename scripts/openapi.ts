// Writes the OpenAPI 3.1 document generated from the route schemas to openapi/openapi.json.
// `npm run openapi` after changing a route; a test fails while the checked-in copy is stale.
import { writeFileSync } from 'node:fs'
import { generateOpenApi } from '../src/openapi-document.ts'

const target = new URL('../openapi/openapi.json', import.meta.url)
writeFileSync(target, await generateOpenApi())
console.log(`wrote ${target.pathname}`)
