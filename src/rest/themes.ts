import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { themeCatalog, ThemeCatalog } from '../domain/sites/themes.ts'

/** GET /v1/themes: the presets, font pairs and corner styles a site's theme may use (DESIGN.md 15). */
export default async function themeRoutes(app: FastifyInstance) {
  const catalog = themeCatalog()
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/themes',
    {
      config: { operation: 'themes.list', access: 'read' },
      schema: {
        summary: 'The theme presets, font pairs and corner styles; set one with PATCH /v1/sites/{id} `theme`',
        tags: ['sites'],
        response: { 200: ThemeCatalog },
      },
    },
    async () => catalog,
  )
}
