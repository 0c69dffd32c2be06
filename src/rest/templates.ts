import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Locale } from '../domain/sites/views.ts'
import { templateCatalogue, TemplateList } from '../domain/sites/templates/catalogue.ts'

/** GET /v1/templates: one template per business type, in the language asked (DESIGN.md 15). */
export default async function templateRoutes(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/templates',
    {
      config: { operation: 'templates.list', access: 'read' },
      schema: {
        summary: 'The templates per business type; start a site from one with POST /v1/sites `template` and `business`',
        tags: ['sites'],
        querystring: Type.Object(
          { locale: Type.Optional({ ...Locale, description: 'The language of names, descriptions and page titles; en unless given' }) },
          { additionalProperties: false },
        ),
        response: { 200: TemplateList },
      },
    },
    async (request) => templateCatalogue(request.query.locale ?? 'en'),
  )
}
