import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { EVENT_TYPES, type EventType } from '../../domain/webhooks/events.ts'
import { listAttempts, listDeadLetters, replayDeadLetter, replayWindow } from '../../domain/webhooks/deliveries.ts'
import { queueTestDelivery } from '../../domain/webhooks/queue-delivery.ts'
import {
  createEndpoint,
  deleteEndpoint,
  endpointView,
  findEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
  webhooksAllowed,
  type EndpointRow,
} from '../../domain/webhooks/endpoints.ts'
import { errors } from '../../errors.ts'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { createSafeFetcher, type SafeFetcher } from '../../infra/fetcher.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import type { WebhookFailure } from '../../infra/tables.ts'
import { checkEndpointUrl, type EndpointUrlPolicy } from '../../domain/webhooks/endpoint-url.ts'
import { actionForm, dataTable, shownOnce } from '../layout.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
import { auditedChange } from '../audited-change.ts'
import type { Entitlement } from '../../frame/index.ts'
import {
  checks,
  field,
  FormBodySchema,
  formState,
  hidden,
  listOf,
  problems,
  refused,
  textOf,
  type FormBody,
  type FormState,
} from './editor/form.ts'

/** The new endpoint's form fields, in the page's language. */
function fields(t: Translator) {
  const url = { name: 'url', label: t.t('webhooks.url'), hint: t.t('webhooks.url.hint'), kind: 'link' as const, maxLength: 500 }
  const description = { name: 'description', label: t.t('webhooks.description'), optional: true, maxLength: 500 }
  const events = { name: 'event_types', label: t.t('webhooks.events') }
  return { url, description, events, labels: { url: url.label, description: description.label, event_types: events.label } }
}

/** The receiver's address refused by the URL check, in plain words. */
function plainUrlRefusal(t: Translator, detail: string): string {
  if (detail.includes('not a valid absolute URL')) return t.t('webhooks.error.notUrl')
  if (detail.startsWith('The url must use https')) return t.t('webhooks.error.https')
  if (detail.includes('user information')) return t.t('webhooks.error.userInfo')
  if (detail.includes('must not name a port')) return t.t('webhooks.error.port')
  if (detail.includes('public internet address')) return t.t('webhooks.error.private')
  return detail
}

/**
 * Why a delivery failed, in plain words of the page's language; the receiver's own detail (what
 * the API shows as `error`) follows as code, for the developer who reads it.
 */
function deliveryProblem(t: Translator, status: number | null, error: string | null, failure: WebhookFailure | null): SafeHtml | string {
  if (status !== null) return t.t('webhooks.problem.status', { status })
  if (error === null) return ''
  return html`${t.t(failure && failure !== 'status' ? PROBLEMS[failure] : 'webhooks.problem.other')} <code class="long">${error}</code>`
}

/** The words of each failure without an answer (an answer's status is said with its number). */
const PROBLEMS = {
  dns: 'webhooks.problem.dns',
  timeout: 'webhooks.problem.timeout',
  connection: 'webhooks.problem.connection',
  redirect: 'webhooks.problem.redirect',
  address: 'webhooks.problem.private',
  plan: 'webhooks.problem.plan',
  disabled: 'webhooks.problem.disabled',
} as const satisfies Record<Exclude<WebhookFailure, 'status'>, string>

/** An endpoint's state in words: enabled, or disabled with why. */
function stateOf(t: Translator, e: { enabled: boolean; disabled_reason: string | null }): string {
  if (e.enabled) return t.t('webhooks.state.enabled')
  return e.disabled_reason ? t.t('webhooks.state.disabledWhy', { why: e.disabled_reason }) : t.t('webhooks.state.disabled')
}

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const Params = Type.Object({ id: Type.String({ pattern: '^whep_[A-Za-z0-9_-]{1,64}$' }) })
const EventTypes = Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Array(Type.String({ maxLength: 40 }), { maxItems: 20 })]))
const MAX_WINDOW_MS = 30 * 86_400_000

/** The event types checked in a form (none checked: every type). */
function eventTypesOf(t: Translator, value: string | string[] | undefined): EventType[] {
  const types = [value ?? []].flat()
  if (!types.every((type) => (EVENT_TYPES as readonly string[]).includes(type)))
    throw new errors.validationFailed(t.t('webhooks.error.eventType'))
  return types as EventType[]
}

function eventTypeChecks(checked: readonly string[]): SafeHtml {
  return html`${EVENT_TYPES.map((t) => html`<label class="check"><input type="checkbox" name="event_types" value="${t}"${checked.includes(t) ? html` checked` : ''}> ${t}</label>`)}`
}

/** Webhooks come with plan pro and above, as on /v1. */
const WEBHOOKS: Entitlement = { name: 'webhooks', allows: webhooksAllowed }

interface Deps {
  db: Db
  keyring: Keyring
  urlPolicy: EndpointUrlPolicy
  fetcher: SafeFetcher
  ownEndpoint: (t: Translator, accountId: string, id: string) => Promise<EndpointRow>
}

/** The list of endpoints and dead letters, and the form that adds an endpoint (its secret shown once). */
function listRoutes(app: FastifyInstance, { db, keyring, urlPolicy, fetcher }: Deps) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get('/webhooks', { config: { operation: 'dashboard.webhooks.list' }, schema: { hide: true } }, async (request, reply) =>
    listPage(request, reply, formState({ url: '', description: '', event_types: '' })),
  )

  async function listPage(request: FastifyRequest, reply: FastifyReply, state: FormState) {
    const accountId = request.person.accountId
    const [{ rows }, dead] = await Promise.all([
      listEndpoints(db, accountId, { limit: 100, offset: 0 }),
      listDeadLetters(db, accountId, { limit: 100, offset: 0 }),
    ])
    const allowed = WEBHOOKS.allows(request.person.plan)
    const csrf = reply.formToken()
    const t = request.t
    const form = fields(t)
    return reply.page(
      t.t('webhooks.title'),
      'webhooks',
      html`<h2>${t.t('webhooks.endpoints')}</h2>
${
  rows.length === 0
    ? html`<p>${t.t('webhooks.endpoints.none')}</p>`
    : dataTable(
        t.t('webhooks.endpoints'),
        [t.t('webhooks.url'), t.t('webhooks.description'), t.t('webhooks.col.events'), t.t('webhooks.col.state')],
        rows.map((row) => {
          const e = endpointView(row)
          return [
            html`<a href="/app/webhooks/${e.id}"><code>${e.url}</code></a>`,
            e.description,
            e.event_types.length ? e.event_types.join(', ') : t.t('webhooks.events.all'),
            stateOf(t, e),
          ]
        }),
      )
}
${
  allowed
    ? html`<h2 id="new-h">${t.t('webhooks.add.title')}</h2>
${problems(state, form.labels)}
<form method="post" action="/app/webhooks#new-h" class="card" novalidate aria-labelledby="new-h">${hidden(csrf)}
${field(state, form.url)}
${field(state, form.description)}
${checks(
  state,
  form.events,
  EVENT_TYPES.map((type) => [type, type] as const),
)}
<p><button type="submit">${t.t('webhooks.add.submit')}</button></p></form>`
    : html`<p>${t.t('webhooks.needsPlan')}</p>`
}
<h2 id="dead-h">${t.t('webhooks.dead')}</h2>
${
  dead.items.length === 0
    ? html`<p>${t.t('webhooks.dead.none')}</p>`
    : dataTable(
        t.t('webhooks.dead'),
        [
          t.t('webhooks.col.failed'),
          t.t('webhooks.col.event'),
          t.t('webhooks.col.attempts'),
          t.t('webhooks.col.lastAnswer'),
          t.t('webhooks.col.replay'),
        ],
        dead.items.map((d) => [
          t.dateTime(d.failed_at),
          html`${d.type} <code>${d.event_id}</code>`,
          t.number(d.attempts),
          deliveryProblem(t, d.last_status, d.last_error, d.last_failure),
          actionForm(`/app/webhooks/dead-letters/${d.id}/replay`, csrf, t.t('webhooks.replayOne', { id: d.event_id }), {
            kind: 'secondary',
          }),
        ]),
      )
}`,
    )
  }

  routes.post(
    '/webhooks',
    { config: { operation: 'dashboard.webhooks.create' }, schema: { hide: true, body: FormBodySchema } },
    async (request, reply) => {
      const accountId = request.person.accountId
      const t = request.t
      const types = listOf(request.body, 'event_types')
      const values = { url: textOf(request.body, 'url'), description: textOf(request.body, 'description'), event_types: types.join(',') }
      const wrong: Record<string, string> = {}
      const raw = values.url.trim()
      let url = ''
      if (raw === '') wrong['url'] = t.t('webhooks.error.empty')
      else if (raw.length > 500) wrong['url'] = t.t('webhooks.error.long')
      else {
        try {
          url = await checkEndpointUrl(raw, urlPolicy, fetcher)
        } catch (error) {
          if (!(error instanceof errors.invalidWebhookUrl)) throw error
          wrong['url'] = plainUrlRefusal(t, error.message)
        }
      }
      if (values.description.trim().length > 500) wrong['description'] = t.t('webhooks.error.long')
      if (!types.every((type) => (EVENT_TYPES as readonly string[]).includes(type))) wrong['event_types'] = t.t('webhooks.error.events')
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return listPage(request, reply, { values, errors: wrong })
      }
      const eventTypes = types as EventType[]
      const { row, secret } = await auditedChange(
        request,
        (trx) => createEndpoint(trx, keyring, accountId, { url, description: values.description.trim(), eventTypes }),
        200,
      )
      return reply.page(
        t.t('webhooks.title'),
        'webhooks',
        html`${shownOnce(t, t.t('webhooks.secretOf', { url: row.url }), secret, t.t('webhooks.secret.note'))}
<p><a href="/app/webhooks/${row.id}">${t.t('webhooks.goToEndpoint')}</a></p>`,
        { notice: t.t('webhooks.added') },
      )
    },
  )
}

/** One endpoint: its state, event filter, actions, attempts, the window replay and deletion. */
function endpointRoute(app: FastifyInstance, { db, keyring, ownEndpoint }: Deps) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/webhooks/:id',
    { config: { operation: 'dashboard.webhooks.get' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const row = await ownEndpoint(request.t, request.person.accountId, request.params.id)
      const e = endpointView(row)
      const attempts = await listAttempts(db, e.id, { limit: 50, offset: 0 }, keyring)
      const csrf = reply.formToken()
      const t = request.t
      const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16)
      const now = new Date(Date.now() + 60_000).toISOString().slice(0, 16)
      return reply.page(
        t.t('webhooks.endpoint.title'),
        'webhooks',
        html`<p><code class="long">${e.url}</code>${e.description ? html`<br>${e.description}` : ''}</p>
<p>${t.rich('webhooks.endpoint.state', { state: stateOf(t, e) }, { strong: (words) => html`<strong>${words}</strong>` })}
${e.enabled ? actionForm(`/app/webhooks/${e.id}/disable`, csrf, t.t('webhooks.disable'), { kind: 'secondary' }) : actionForm(`/app/webhooks/${e.id}/enable`, csrf, t.t('webhooks.enable'))}</p>
<form method="post" action="/app/webhooks/${e.id}" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<fieldset><legend>${t.t('webhooks.events')}</legend>${eventTypeChecks(e.event_types)}</fieldset>
<p><button type="submit">${t.t('webhooks.saveEvents')}</button></p></form>
<p>${actionForm(`/app/webhooks/${e.id}/rotate-secret`, csrf, t.t('webhooks.rotate'), { kind: 'secondary' })}${actionForm(`/app/webhooks/${e.id}/test`, csrf, t.t('webhooks.test'), { kind: 'secondary' })}</p>
<form method="post" action="/app/webhooks/${e.id}/replay" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<h2>${t.t('webhooks.window.title')}</h2>
<label for="since">${t.t('webhooks.window.from')}</label><input id="since" name="since" type="datetime-local" required value="${day}">
<label for="until">${t.t('webhooks.window.until')}</label><input id="until" name="until" type="datetime-local" required value="${now}">
<p><button type="submit">${t.t('webhooks.window.submit')}</button></p></form>
<h2 id="attempts-h">${t.t('webhooks.attempts')}</h2>
${
  attempts.items.length === 0
    ? html`<p>${t.t('webhooks.attempts.none')}</p>`
    : dataTable(
        t.t('webhooks.attempts.label'),
        [
          t.t('webhooks.col.time'),
          t.t('webhooks.col.event'),
          t.t('webhooks.col.attempt'),
          t.t('webhooks.col.status'),
          t.t('webhooks.col.duration'),
          t.t('webhooks.col.answer'),
        ],
        attempts.items.map((a) => [
          t.dateTime(a.attempted_at),
          a.type,
          t.number(a.attempt),
          a.status ?? deliveryProblem(t, null, a.error, a.failure),
          t.t('webhooks.ms', { ms: a.duration_ms }),
          html`<code class="long">${(a.response ?? '').slice(0, 200)}</code>`,
        ]),
      )
}
<h2>${t.t('webhooks.delete.title')}</h2>
<p>${t.t('webhooks.delete.text')}</p>
${actionForm(`/app/webhooks/${e.id}/delete`, csrf, t.t('webhooks.delete.submit'), { kind: 'danger', inline: false })}`,
      )
    },
  )
}

/** Changes of an endpoint: its events, enabled or not, deletion. */
function changeRoutes(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.post(
    '/webhooks/:id',
    {
      config: { operation: 'dashboard.webhooks.update' },
      schema: { hide: true, params: Params, body: Type.Object({ ...Form, event_types: EventTypes }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const eventTypes = eventTypesOf(request.t, request.body.event_types)
      await auditedChange(request, async (trx) => {
        if (!(await updateEndpoint(trx, request.person.accountId, request.params.id, { eventTypes })))
          throw new errors.notFound(request.t.t('webhooks.error.noEndpoint'))
      })
      return reply.redirect(`/app/webhooks/${request.params.id}?done=webhook-updated`, 303)
    },
  )

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    routes.post(
      `/webhooks/:id/${action}`,
      {
        config: { operation: `dashboard.webhooks.${action}` },
        schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) },
      },
      async (request, reply) => {
        await auditedChange(request, async (trx) => {
          if (!(await updateEndpoint(trx, request.person.accountId, request.params.id, { enabled })))
            throw new errors.notFound(request.t.t('webhooks.error.noEndpoint'))
        })
        return reply.redirect(`/app/webhooks/${request.params.id}?done=webhook-${action}d`, 303)
      },
    )
  }

  routes.post(
    '/webhooks/:id/delete',
    {
      config: { operation: 'dashboard.webhooks.delete' },
      schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, async (trx) => {
        if (!(await deleteEndpoint(trx, request.person.accountId, request.params.id)))
          throw new errors.notFound(request.t.t('webhooks.error.noEndpoint'))
      })
      return reply.redirect('/app/webhooks?done=webhook-deleted', 303)
    },
  )
}

/** A new signing secret (shown once) and a test event. */
function secretAndTestRoutes(app: FastifyInstance, { keyring }: Deps) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { operation: 'dashboard.webhooks.rotateSecret' },
      schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const rotated = await auditedChange(
        request,
        async (trx) => {
          const result = await rotateSecret(trx, keyring, request.person.accountId, request.params.id)
          if (!result) throw new errors.notFound(request.t.t('webhooks.error.noEndpoint'))
          if ('overlapUntil' in result)
            throw new errors.rotationInProgress(request.t.t('webhooks.error.rotating', { until: request.t.dateTime(result.overlapUntil) }))
          return result
        },
        200,
      )
      const t = request.t
      return reply.page(
        t.t('webhooks.title'),
        'webhooks',
        html`${shownOnce(t, t.t('webhooks.newSecret'), rotated.secret, t.t('webhooks.previousUntil', { until: t.dateTime(rotated.previousExpiresAt) }))}
<p><a href="/app/webhooks/${request.params.id}">${t.t('webhooks.backToEndpoint')}</a></p>`,
        { notice: t.t('webhooks.rotated') },
      )
    },
  )

  routes.post(
    '/webhooks/:id/test',
    {
      config: { operation: 'dashboard.webhooks.test' },
      schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, async (trx) => {
        const endpoint = await findEndpoint(trx, request.person.accountId, request.params.id)
        if (!endpoint) throw new errors.notFound(request.t.t('webhooks.error.noEndpoint'))
        if (!endpoint.enabled) throw new errors.endpointDisabled(request.t.t('webhooks.error.disabled'))
        return queueTestDelivery(trx, endpoint.account_id, endpoint.id)
      })
      return reply.redirect(`/app/webhooks/${request.params.id}?done=test-sent`, 303)
    },
  )
}

/** Replays: the events of a time window, or one dead letter. */
function replayRoutes(app: FastifyInstance, { ownEndpoint }: Deps) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.post(
    '/webhooks/:id/replay',
    {
      config: { operation: 'dashboard.webhooks.replay' },
      schema: {
        hide: true,
        params: Params,
        body: Type.Object(
          { ...Form, since: Type.String({ maxLength: 40 }), until: Type.String({ maxLength: 40 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      // datetime-local fields carry no zone; the form says UTC.
      const since = new Date(`${request.body.since}Z`)
      const until = new Date(`${request.body.until}Z`)
      if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime()))
        throw new errors.validationFailed(request.t.t('webhooks.error.windowTimes'))
      if (until <= since || until.getTime() - since.getTime() > MAX_WINDOW_MS)
        throw new errors.validationFailed(request.t.t('webhooks.error.window'))
      const endpoint = await ownEndpoint(request.t, request.person.accountId, request.params.id)
      await auditedChange(request, (trx) => replayWindow(trx, endpoint.account_id, endpoint.id, since, until))
      return reply.redirect(`/app/webhooks/${endpoint.id}?done=window-replayed`, 303)
    },
  )

  routes.post(
    '/webhooks/dead-letters/:id/replay',
    {
      config: { operation: 'dashboard.webhooks.replayDeadLetter' },
      schema: {
        hide: true,
        params: Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$' }) }),
        body: Type.Object(Form, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      await auditedChange(request, async (trx) => {
        const result = await replayDeadLetter(trx, request.person.accountId, request.params.id)
        if (result === 'not_found') throw new errors.notFound(request.t.t('webhooks.error.noDeadLetter'))
        if (result === 'endpoint_disabled') throw new errors.endpointDisabled(request.t.t('webhooks.error.disabled'))
        return result
      })
      return reply.redirect('/app/webhooks?done=replayed', 303)
    },
  )
}

/**
 * Webhooks: endpoints created here or through the REST API (the URL checked the same way), with
 * their event filter, enable and disable, secret rotation (the new secret shown once), test sends,
 * attempts, deletion, and dead letters replayed one by one or by time window.
 */
export default async function webhooksSection(app: FastifyInstance) {
  const { db, keyring, config } = app
  const urlPolicy = { requireHttps: config.NODE_ENV === 'production', allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS }
  // Only resolves names, to refuse a URL that points inside the network; deliveries use their own.
  const fetcher = createSafeFetcher({ allowPrivateNetworks: urlPolicy.allowPrivateNetworks, timeoutMs: 5000, maxRedirects: 0 })
  app.addHook('onClose', () => fetcher.close())

  async function ownEndpoint(t: Translator, accountId: string, id: string): Promise<EndpointRow> {
    const endpoint = await findEndpoint(db, accountId, id)
    if (!endpoint) throw new errors.notFound(t.t('webhooks.error.noEndpoint'))
    return endpoint
  }

  // As on /v1, every webhook action needs plan pro or above; an account that fell below it still
  // sees its endpoints and dead letters, and may replay them after an upgrade.
  app.addHook('preHandler', async (request) => {
    if (request.method === 'POST') app.frame.authorize(request.person, { entitlement: WEBHOOKS })
  })

  const deps: Deps = { db, keyring, urlPolicy, fetcher, ownEndpoint }
  listRoutes(app, deps)
  endpointRoute(app, deps)
  changeRoutes(app)
  secretAndTestRoutes(app, deps)
  replayRoutes(app, deps)
}
