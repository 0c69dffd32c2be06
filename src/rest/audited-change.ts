import type { RawBuilder } from 'kysely'
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseAsyncHookHandler } from 'fastify'
import { auditEntry } from '../frame/index.ts'
import type { Db } from '../infra/db.ts'
import { etagOf } from './http.ts'
import { answerStored, claimedKeyOf, keyOwnerOf } from './idempotency.ts'
import { storeAnswer } from './idempotency-store.ts'

/**
 * A /v1 change with its audit record in one transaction (the frame's `auditedChange`). `status` is
 * the answer the route gives on success. The frame then writes no second record for the call; if
 * the change fails, nothing is committed and the failure is recorded like any other answer.
 *
 *   const site = await auditedChange(request, (trx) => updateSite(trx, ...))
 *
 * A POST takes answerChange instead, which stores its Idempotency-Key answer in the same transaction.
 */
export async function auditedChange<T>(request: FastifyRequest, work: (trx: Db) => Promise<T>, status = 200): Promise<T> {
  return request.server.frame.audit.auditedChange(request, request.principal, status, work)
}

/**
 * A /v1 change made in one statement with its audit record (the frame's `changeInOneStatement`);
 * undefined when the statement changed nothing, and the caller takes `auditedChange`'s way.
 */
export async function changeInOneStatement<T>(
  request: FastifyRequest,
  work: (alongside: (changed: string) => RawBuilder<unknown>) => Promise<T | undefined>,
  status = 200,
): Promise<T | undefined> {
  return request.server.frame.audit.changeInOneStatement(request, request.principal, status, work)
}

/** The answer of a change: its status, body and, for an item, where it lives and what its ETag is made of. */
export interface ChangeAnswer {
  status: number
  body: unknown
  location?: string
  /** The item's ETag is made of this (the body itself by default); none for `false`. */
  etagSource?: unknown
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Runs a change, its audit record and, for a POST that claimed an Idempotency-Key, the answer a
 * replay will repeat, all in one transaction, then sends that answer. A crash after the commit
 * therefore leaves the key with its answer: a retry replays it and never runs the change twice.
 * `answer` builds the answer from the change's result inside the transaction (reading with
 * `trx` sees the change).
 *
 *   return answerChange(request, reply, (trx) => createSite(trx, ...), (site) => ({ status: 201, body: view(site), location: `/v1/sites/${site.id}` }))
 */
export async function answerChange<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Db) => Promise<T>,
  answer: (value: T, trx: Db) => ChangeAnswer | Promise<ChangeAnswer>,
): Promise<FastifyReply> {
  const key = claimedKeyOf(request)
  const { frame } = request.server
  const sent = await frame.auditedChange(
    request.server.db,
    (done) => auditEntry(request, request.principal, done.status),
    async (trx: Db) => {
      const outcome = await answer(await work(trx), trx)
      const serialize = reply.getSerializationFunction(String(outcome.status)) ?? JSON.stringify
      const payload = serialize(outcome.body)
      const headers: Record<string, string> = { 'content-type': JSON_TYPE }
      if (outcome.location !== undefined) headers['location'] = outcome.location
      if (outcome.etagSource !== false) headers['etag'] = etagOf(outcome.etagSource ?? outcome.body)
      if (key !== undefined)
        await storeAnswer(trx, request.server.keyring, keyOwnerOf(request.principal), key, {
          status: outcome.status,
          headers,
          body: payload,
        })
      return { status: outcome.status, headers, payload }
    },
  )
  frame.audit.written(request)
  if (key !== undefined) answerStored(request)
  return reply.code(sent.status).headers(sent.headers).send(sent.payload)
}

/** Every other answer to an identified account (reads, refusals, failed changes) is recorded by the frame in batches. */
export function auditHook(app: FastifyInstance): onResponseAsyncHookHandler {
  return async function auditResponse(request, reply) {
    if (!request.principal || app.frame.audit.isWritten(request)) return
    app.frame.audit.record(auditEntry(request, request.principal, reply.statusCode))
  }
}
