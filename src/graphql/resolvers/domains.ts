import { addDomain, deleteDomain, domainView, getAccountDomain, parseHostname, requestVerification } from '../../domain/sites/domains.ts'
import { deleteAccountLead, getAccountLead, setLeadStatus, type LeadStatus } from '../../domain/leads/leads.ts'
import { serviceHostnames } from '../../domain/sites/subdomains.ts'
import { leadView } from '../../domain/sites/views.ts'
import { etagOf } from '../../infra/etag.ts'
import { auditedChange } from '../audited-change.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { inputs, plausibleId } from '../inputs.ts'
import { domainNode, etagOfNode, leadNode } from '../views.ts'
import { notFound, orNotFound } from './query.ts'
import { ownSite } from './sites.ts'
import { changeExisting, ifMatch, type Existing, type Input } from './writes.ts'

/** Domains and leads (DESIGN.md 13): the writes of /v1/sites/{id}/domains, /v1/domains and /v1/leads. */
export const domainResolvers = {
  Domain: {
    etag: etagOfNode,
  },
  Lead: {
    etag: etagOfNode,
  },
  Mutation: {
    async addDomain(_root: unknown, { input }: Input<{ siteId: string }>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const body = inputs.newDomain(input)
      const site = await ownSite(context, input.siteId)
      const hostname = parseHostname(body.hostname, serviceHostnames(context.app.config))
      return domainNode(await auditedChange(context, (trx) => addDomain(trx, site.id, hostname, body.primary)))
    },

    async verifyDomain(_root: unknown, { input }: Input<{ id: string }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      if (!plausibleId(input.id)) throw notFound('Domain')
      const domain = await auditedChange(context, async (trx) => {
        const current = orNotFound(await getAccountDomain(trx, principal.accountId, input.id), 'Domain')
        return requestVerification(trx, current)
      })
      return domainNode(domain)
    },

    async deleteDomain(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      if (!plausibleId(input.id)) throw notFound('Domain')
      await auditedChange(context, async (trx) => {
        const domain = orNotFound(await getAccountDomain(trx, principal.accountId, input.id), 'Domain')
        ifMatch(input.ifMatch, etagOf(domainView(domain)))
        await deleteDomain(trx, domain)
      })
      return input.id
    },

    async deleteLead(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writeLeads)
      if (!plausibleId(input.id)) throw notFound('Lead')
      await auditedChange(context, async (trx) => {
        const lead = orNotFound(await getAccountLead(trx, context.app.keyring, principal.accountId, input.id), 'Lead')
        ifMatch(input.ifMatch, etagOf(leadView(lead)))
        orNotFound(await deleteAccountLead(trx, principal.accountId, lead.id), 'Lead')
      })
      return input.id
    },

    async updateLead(_root: unknown, { input }: Input<Existing & { status: LeadStatus }>, context: GraphqlContext) {
      allowed(context, ACCESS.writeLeads)
      const { keyring } = context.app
      const lead = await changeExisting(context, 'Lead', input, leadView, (trx, accountId, id, check) =>
        setLeadStatus(trx, keyring, accountId, id, input.status, check),
      )
      return leadNode(lead)
    },
  },
}
