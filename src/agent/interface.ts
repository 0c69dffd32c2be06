import { sha256Hex } from '../infra/crypto.ts'
import { canonicalJson } from '../domain/leads/consent.ts'
import { interfaceSchemas } from './schemas.ts'

export const INTERFACE_LABEL = 'sales-agent-public.v2'

export interface SalesAgentInterface {
  label: string
  /** SHA-256 hex of the RFC 8785 canonical JSON of the schema bundle. */
  digest: string
}

/** The JSON Schema bundle of the interface as plain JSON (TypeBox's symbol keys drop out). */
export function interfaceBundle(): { label: string; schemas: Record<string, unknown> } {
  return { label: INTERFACE_LABEL, schemas: JSON.parse(JSON.stringify(interfaceSchemas)) as Record<string, unknown> }
}

let cached: SalesAgentInterface | undefined

/** Label and digest of the sales-assistant interface, for the OpenAPI document's `x-sales-agent-interface`. */
export function salesAgentInterface(): SalesAgentInterface {
  cached ??= { label: INTERFACE_LABEL, digest: sha256Hex(canonicalJson(interfaceBundle())) }
  return { ...cached }
}
