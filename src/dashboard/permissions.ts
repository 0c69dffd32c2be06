import type { FastifyRequest } from 'fastify'
import { roleAllows, type Role } from '../domain/accounts/members.ts'
import { requiredRole } from '../frame/roles.ts'

/**
 * What the person's role lets them do on the dashboard's pages, decided as the frame decides it
 * (`requiredRole`, `roleAllows`): a page shows the forms and links of the actions the role allows,
 * and a viewer sees the same pages read-only. The server refuses the rest all the same.
 */

/** The least role a dashboard request needs: what its route says, else a viewer to read and an editor to change. */
export function neededRole(request: FastifyRequest): Role {
  return (
    request.routeOptions.config?.role ?? requiredRole({ access: request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write' })
  )
}

/** Whether the person may change the account's sites, pages, blocks, domains and leads and publish. */
export function mayChange(person: { role: Role }): boolean {
  return roleAllows(person.role, requiredRole({ access: 'write' }))
}
