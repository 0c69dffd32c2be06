import { Type } from 'typebox'
import { listAccountLeads } from '../../domain/leads/leads.ts'
import { accountTool } from '../account.ts'
import { Lead as LeadSchema, leadView } from '../../domain/sites/views.ts'
import { ListOf } from '../views.ts'
import { listOf, pageOf, PagingArguments } from './paging.ts'
import { ownSite } from './sites.ts'

export const leadTools = [
  accountTool({
    name: 'list_leads',
    title: 'List leads',
    description:
      "Leads the account's sites received (from the assistant or a contact form), newest first, with the consent they were given under. Filter by site and by time.",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object(
      {
        site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        since: Type.Optional(Type.String({ format: 'date-time', description: 'Only leads received at or after this time' })),
        ...PagingArguments,
      },
      { additionalProperties: false },
    ),
    output: ListOf(LeadSchema),
    run: async (args, call) => {
      if (args.site_id !== undefined) await ownSite(call, args.site_id)
      const paging = pageOf(args)
      const filter = { siteId: args.site_id, since: args.since === undefined ? undefined : new Date(args.since) }
      const { items, total } = await listAccountLeads(call.db, call.app.keyring, call.accountId, filter, paging)
      return listOf(items.map(leadView), total, paging)
    },
  }),
]
