import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { EVENT_TYPES, type EventType } from '../../domain/events.ts'
import { listAttempts, listDeadLetters, replayDeadLetter, replayWindow } from '../../domain/webhook-deliveries.ts'
import { queueTestDelivery } from '../../domain/webhook-delivery.ts'
import { endpointView, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from '../../domain/webhooks.ts'
import { errors } from '../../errors.ts'
import { html } from '../../infra/html.ts'
import { actionForm, when } from '../layout.ts'
import { audited } from '../pages.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const Params = Type.Object({ id: Type.String({ pattern: '^whep_[A-Za-z0-9_-]{1,64}$' }) })
const MAX_WINDOW_MS = 30 * 86_400_000

/**
 * Webhooks: endpoints with their event filter, secret rotation (the new secret shown once), test
 * sends, attempts, and dead letters replayed one by one or by time window. Endpoints are created
 * through the REST API, where their URL is checked.
 */
export default async function webhooksSection(app: FastifyInstance) {
  const { db, keyring } = app

  async function ownEndpoint(accountId: string, id: string) {
    const endpoint = await findEndpoint(db, accountId, id)
    if (!endpoint) throw new errors.notFound('No such webhook endpoint')
    return endpoint
  }

  app.get('/webhooks', { config: { operation: 'dashboard.webhooks.list' }, schema: { hide: true } }, async (request, reply) => {
    const accountId = request.person.accountId
    const [{ rows }, dead] = await Promise.all([listEndpoints(db, accountId, 100, 0), listDeadLetters(db, accountId, { limit: 100, offset: 0 })])
    const csrf = await reply.generateCsrf()
    return reply.page(
      'Webhooks',
      'webhooks',
      html`<h2>Endpoints</h2>
${rows.length === 0
  ? html`<p>No endpoints yet. Add one through the REST API: <code>POST /v1/webhooks</code> (plan pro or max).</p>`
  : html`<div class="table" tabindex="0"><table><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th></tr></thead><tbody>${rows.map((row) => {
      const e = endpointView(row)
      return html`<tr><td><a href="/app/webhooks/${e.id}">${e.url}</a></td><td>${e.event_types.length ? e.event_types.join(', ') : 'all'}</td><td>${e.enabled ? 'enabled' : `disabled${e.disabled_reason ? ` (${e.disabled_reason})` : ''}`}</td></tr>`
    })}</tbody></table></div>`}
<h2 id="dead-h">Dead letters</h2>
${dead.items.length === 0
  ? html`<p>No failed deliveries.</p>`
  : html`<div class="table" tabindex="0"><table aria-labelledby="dead-h"><thead><tr><th scope="col">Failed</th><th scope="col">Event</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Replay</th></tr></thead><tbody>${dead.items.map(
      (d) => html`<tr><td>${when(d.failed_at)}</td><td>${d.type} <code>${d.event_id}</code></td><td>${d.attempts}</td><td>${d.last_status ?? ''} ${d.last_error ?? ''}</td><td>${actionForm(`/app/webhooks/dead-letters/${d.id}/replay`, csrf, `Replay ${d.event_id}`, { kind: 'secondary' })}</td></tr>`,
    )}</tbody></table></div>`}`,
    )
  })

  app.get<{ Params: { id: string } }>('/webhooks/:id', { config: { operation: 'dashboard.webhooks.get' }, schema: { hide: true, params: Params } }, async (request, reply) => {
    const row = await ownEndpoint(request.person.accountId, request.params.id)
    const e = endpointView(row)
    const attempts = await listAttempts(db, e.id, { limit: 50, offset: 0 })
    const csrf = await reply.generateCsrf()
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16)
    const now = new Date(Date.now() + 60_000).toISOString().slice(0, 16)
    return reply.page(
      `Endpoint ${e.url}`,
      'webhooks',
      html`<form method="post" action="/app/webhooks/${e.id}" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<fieldset><legend>Events sent (none checked: all)</legend>${EVENT_TYPES.map((t) => html`<label class="check"><input type="checkbox" name="event_types" value="${t}"${e.event_types.includes(t) ? html` checked` : ''}> ${t}</label>`)}</fieldset>
<label class="check"><input type="checkbox" name="enabled" value="true"${e.enabled ? html` checked` : ''}> Enabled</label>
<p><button type="submit">Save</button></p></form>
<p>${actionForm(`/app/webhooks/${e.id}/rotate-secret`, csrf, 'Rotate secret', { kind: 'secondary' })} ${actionForm(`/app/webhooks/${e.id}/test`, csrf, 'Send a test event', { kind: 'secondary' })}</p>
<form method="post" action="/app/webhooks/${e.id}/replay" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<h2>Replay a time window</h2>
<label for="since">From (UTC)</label><input id="since" name="since" type="datetime-local" required value="${day}">
<label for="until">Until (UTC)</label><input id="until" name="until" type="datetime-local" required value="${now}">
<p><button type="submit">Replay events of this window</button></p></form>
<h2 id="attempts-h">Attempts</h2>
${attempts.items.length === 0
  ? html`<p>No attempts yet.</p>`
  : html`<div class="table" tabindex="0"><table aria-labelledby="attempts-h"><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Answer</th></tr></thead><tbody>${attempts.items.map(
      (a) => html`<tr><td>${when(a.attempted_at)}</td><td>${a.type}</td><td>${a.attempt}</td><td>${a.status ?? a.error ?? ''}</td><td>${a.duration_ms} ms</td><td><code>${(a.response ?? '').slice(0, 200)}</code></td></tr>`,
    )}</tbody></table></div>`}`,
    )
  })

  app.post<{ Params: { id: string }; Body: { event_types?: string | string[]; enabled?: string } }>(
    '/webhooks/:id',
    {
      config: { operation: 'dashboard.webhooks.update' },
      preHandler: app.csrfProtection,
      schema: {
        hide: true,
        params: Params,
        body: Type.Object({ ...Form, event_types: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])), enabled: Type.Optional(Type.Literal('true')) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const types = [request.body.event_types ?? []].flat()
      if (!types.every((t) => (EVENT_TYPES as readonly string[]).includes(t))) throw new errors.validationFailed('Unknown event type')
      await audited(request, 'webhooks.update', async (trx) => {
        const updated = await updateEndpoint(trx, request.person.accountId, request.params.id, { eventTypes: types as EventType[], enabled: request.body.enabled === 'true' })
        if (!updated) throw new errors.notFound('No such webhook endpoint')
      })
      return reply.redirect(`/app/webhooks/${request.params.id}?done=webhook-updated`, 303)
    },
  )

  app.post<{ Params: { id: string } }>(
    '/webhooks/:id/rotate-secret',
    { config: { operation: 'dashboard.webhooks.rotateSecret' }, preHandler: app.csrfProtection, schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) } },
    async (request, reply) => {
      const rotated = await audited(request, 'webhooks.rotateSecret', (trx) => rotateSecret(trx, keyring, request.person.accountId, request.params.id), 200)
      if (!rotated) throw new errors.notFound('No such webhook endpoint')
      if ('overlapUntil' in rotated) throw new errors.rotationInProgress(`The previous secret still signs until ${rotated.overlapUntil.toISOString()}; rotate again after that`)
      return reply.page(
        'Webhooks',
        'webhooks',
        html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">New signing secret</h2><p>Copy it now: it is shown only once. The previous secret keeps signing until ${when(rotated.previousExpiresAt)}.</p>
<output class="secret" id="secret">${rotated.secret}</output><button type="button" class="secondary" id="copy" hidden>Copy</button><script src="/app/copy.js" defer></script></section>
<p><a href="/app/webhooks/${request.params.id}">Back to the endpoint</a></p>`,
        { notice: 'The secret was rotated.' },
      )
    },
  )

  app.post<{ Params: { id: string } }>(
    '/webhooks/:id/test',
    { config: { operation: 'dashboard.webhooks.test' }, preHandler: app.csrfProtection, schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) } },
    async (request, reply) => {
      await audited(request, 'webhooks.test', async (trx) => {
        const endpoint = await findEndpoint(trx, request.person.accountId, request.params.id)
        if (!endpoint) throw new errors.notFound('No such webhook endpoint')
        if (!endpoint.enabled) throw new errors.endpointDisabled('The endpoint is disabled; enable it first')
        return queueTestDelivery(trx, endpoint.account_id, endpoint.id)
      })
      return reply.redirect(`/app/webhooks/${request.params.id}?done=test-sent`, 303)
    },
  )

  app.post<{ Params: { id: string }; Body: { since: string; until: string } }>(
    '/webhooks/:id/replay',
    {
      config: { operation: 'dashboard.webhooks.replay' },
      preHandler: app.csrfProtection,
      schema: { hide: true, params: Params, body: Type.Object({ ...Form, since: Type.String({ maxLength: 40 }), until: Type.String({ maxLength: 40 }) }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      // datetime-local fields carry no zone; the form says UTC.
      const since = new Date(`${request.body.since}Z`)
      const until = new Date(`${request.body.until}Z`)
      if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime())) throw new errors.validationFailed('Give both times of the window')
      if (until <= since || until.getTime() - since.getTime() > MAX_WINDOW_MS) throw new errors.validationFailed('The window must end after it starts and span at most 30 days')
      const endpoint = await ownEndpoint(request.person.accountId, request.params.id)
      await audited(request, 'webhooks.replay', (trx) => replayWindow(trx, endpoint.account_id, endpoint.id, since, until))
      return reply.redirect(`/app/webhooks/${endpoint.id}?done=window-replayed`, 303)
    },
  )

  app.post<{ Params: { id: string } }>(
    '/webhooks/dead-letters/:id/replay',
    {
      config: { operation: 'dashboard.webhooks.replayDeadLetter' },
      preHandler: app.csrfProtection,
      schema: { hide: true, params: Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$' }) }), body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const result = await audited(request, 'webhooks.replayDeadLetter', (trx) => replayDeadLetter(trx, request.person.accountId, request.params.id))
      if (result === 'not_found') throw new errors.notFound('No such dead letter')
      if (result === 'endpoint_disabled') throw new errors.endpointDisabled('The endpoint is disabled; enable it first')
      return reply.redirect('/app/webhooks?done=replayed', 303)
    },
  )
}
