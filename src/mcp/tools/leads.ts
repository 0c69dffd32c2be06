import { Type } from 'typebox'
import { listAccountLeads, setLeadStatus } from '../../domain/leads/leads.ts'
import { errors } from '../../errors.ts'
import { accountTool } from '../account.ts'
import { Lead as LeadSchema, LeadStatus, leadView } from '../../domain/sites/views.ts'
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
        status: Type.Optional(LeadStatus),
        ...PagingArguments,
      },
      { additionalProperties: false },
    ),
    output: ListOf(LeadSchema),
    run: async (args, call) => {
      if (args.site_id !== undefined) await ownSite(call, args.site_id)
      const paging = pageOf(args)
      const filter = { siteId: args.site_id, since: args.since === undefined ? undefined : new Date(args.since), status: args.status }
      const { items, total } = await listAccountLeads(call.db, call.app.keyring, call.accountId, filter, paging)
      return listOf(items.map(leadView), total, paging)
    },
  }),
  accountTool({
    name: 'update_lead',
    title: "Set a lead's status",
    description: 'Marks a lead new, answered (someone replied to the visitor) or archived (put away). Answers the lead as it now is.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      { lead_id: Type.String({ minLength: 1, maxLength: 100, description: 'The lead id (lead_…)' }), status: LeadStatus },
      { additionalProperties: false },
    ),
    output: LeadSchema,
    run: async (args, call) => {
      const lead = await setLeadStatus(call.db, call.app.keyring, call.accountId, args.lead_id, args.status)
      if (!lead) throw new errors.notFound(`No lead ${args.lead_id} in this account`)
      return leadView(lead)
    },
  }),
]
