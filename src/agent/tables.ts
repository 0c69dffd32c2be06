/** Tables of this room; src/infra/tables.ts composes them into the Database type. */
export interface AgentTables {}
