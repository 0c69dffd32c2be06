import { roleAllows, type Role } from '../domain/accounts/members.ts'
import { errors } from '../errors.ts'

/** What `authorize` is asked about an action, as far as roles go. */
export interface RoleNeeds {
  /** The least role the action needs; without it, derived from the scope and the access. */
  role?: Role
  scope?: string
  access?: 'read' | 'write'
}

/** Scopes whose every action is the owner's (DESIGN.md 12: an editor cannot manage webhooks). */
const OWNER_SCOPES: ReadonlySet<string> = new Set(['manage:webhooks'])

/**
 * The role an action needs (DESIGN.md 12): what it names; else the owner for webhooks, an editor
 * for any change, a viewer for a read.
 */
export function requiredRole(needs: RoleNeeds): Role {
  if (needs.role) return needs.role
  if (needs.scope && OWNER_SCOPES.has(needs.scope)) return 'owner'
  return needs.access === 'write' ? 'editor' : 'viewer'
}

const WORDS: Record<Role, string> = { owner: 'an owner', editor: 'an editor or an owner', viewer: 'a member' }
/** A member's role as a sentence names it: 'is an editor'. */
export const A_ROLE: Record<Role, string> = { owner: 'an owner', editor: 'an editor', viewer: 'a viewer' }

/** 403 role_required when the member's role is below what the action needs. */
export function assertRole(accountId: string, role: Role, needs: RoleNeeds): void {
  const needed = requiredRole(needs)
  if (!roleAllows(role, needed))
    throw new errors.roleRequired(`This member of the account ${accountId} is ${A_ROLE[role]}; only ${WORDS[needed]} may do this`)
}
