import type { FastifyInstance } from 'fastify'
import dashboardPages from './pages.ts'
import widgetRoute from './widget.ts'

/** What people see: the embeddable chat widget, and the dashboard pages under /app. */
export default async function dashboardRoutes(app: FastifyInstance) {
  await app.register(widgetRoute)
  await app.register(dashboardPages, { prefix: '/app' })
}
