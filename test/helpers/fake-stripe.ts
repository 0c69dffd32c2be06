import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'
import { cleanUpAfter } from './cleanup.ts'

/**
 * Stripe's API on loopback, for the endpoints the service calls, in Stripe's JSON shapes (API
 * version of the installed SDK) and error format (`{error: {type, code, message, param}}`):
 * products (with fixed ids), prices with lookup keys (`transfer_lookup_key`, retiring with
 * `active: false`), customers, Checkout Sessions in subscription mode (with a page that pays and
 * sends the person back to `success_url`), subscriptions with items (updates with proration,
 * `cancel_at_period_end`, metadata; cancelled at once by DELETE), Customer Portal sessions and invoices. Events are signed as
 * Stripe signs them (the SDK's generateTestHeaderString) and posted to `webhookUrl`.
 *
 * The test drives what Stripe would do by itself: pay a checkout, fail a payment, retry it, give
 * up, end a period. `clock` is the fake's time in seconds (moved by `advance`).
 */

type Json = Record<string, any>

export interface FakeStripeOptions {
  secretKey: string
  webhookSecret: string
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`
const DAY = 86_400
const INTERVAL_SECONDS = { month: 30 * DAY, year: 365 * DAY }

/** Parses Stripe's form encoding (`items[0][price]=…`, `lookup_keys[0]=…`) into objects and arrays. */
export function parseForm(text: string): Json {
  const root: Json = {}
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const path = rawKey.replace(/\]/g, '').split('[')
    let node: Json = root
    path.forEach((segment, i) => {
      if (i === path.length - 1) node[segment] = value
      else node = node[segment] ??= {}
    })
  }
  const arrays = (value: unknown): unknown => {
    if (!value || typeof value !== 'object') return value
    const entries = Object.entries(value as Json).map(([k, v]) => [k, arrays(v)] as const)
    if (entries.length && entries.every(([k]) => /^\d+$/.test(k)))
      return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v)
    return Object.fromEntries(entries)
  }
  return arrays(root) as Json
}

export async function startFakeStripe(options: FakeStripeOptions) {
  const products = new Map<string, Json>()
  const prices = new Map<string, Json>()
  const customers = new Map<string, Json>()
  const sessions = new Map<string, Json>()
  const subscriptions = new Map<string, Json>()
  const invoices = new Map<string, Json>()
  const events: Json[] = []
  const requests: Array<{ method: string; path: string; body: Json }> = []
  let invoiceNumber = 0
  const state = {
    clock: Math.floor(Date.now() / 1000),
    webhookUrl: '',
    /** Events are posted as they happen unless this is false (then `deliver` sends them). */
    deliverEvents: true,
    failNext: 0,
  }
  let base = ''

  const error = (status: number, type: string, message: string, extra: Json = {}) => ({
    status,
    body: { error: { type, message, ...extra } },
  })
  const missing = (kind: string, key: string, param = 'id') =>
    error(404, 'invalid_request_error', `No such ${kind}: '${key}'`, { code: 'resource_missing', param })
  const list = (data: Json[], url: string) => ({ object: 'list', data, has_more: false, url })

  function priceView(price: Json): Json {
    return price
  }

  function itemOf(subscription: Json, priceId: string, quantity: number, periodStart: number, periodEnd: number): Json {
    return {
      id: id('si'),
      object: 'subscription_item',
      created: state.clock,
      current_period_start: periodStart,
      current_period_end: periodEnd,
      discounts: [],
      metadata: {},
      plan: null,
      price: prices.get(priceId),
      quantity,
      subscription: subscription['id'],
      tax_rates: [],
    }
  }

  function newInvoice(
    subscription: Json,
    lines: Array<{ amount: number; description: string; priceId: string; quantity: number; proration: boolean }>,
    reason: string,
    status: 'paid' | 'open',
  ): Json {
    const total = lines.reduce((sum, line) => sum + line.amount, 0)
    const invoice: Json = {
      id: id('in'),
      object: 'invoice',
      account_country: 'DE',
      amount_due: Math.max(0, total),
      amount_paid: status === 'paid' ? Math.max(0, total) : 0,
      amount_remaining: status === 'paid' ? 0 : Math.max(0, total),
      attempt_count: 1,
      attempted: true,
      billing_reason: reason,
      collection_method: 'charge_automatically',
      created: state.clock,
      currency: 'eur',
      customer: subscription['customer'],
      hosted_invoice_url: '',
      invoice_pdf: '',
      lines: {
        object: 'list',
        data: lines.map((line) => ({
          id: id('il'),
          object: 'line_item',
          amount: line.amount,
          currency: 'eur',
          description: line.description,
          pricing: { type: 'price_details', price_details: { price: line.priceId, product: prices.get(line.priceId)?.['product'] } },
          parent: {
            type: 'subscription_item_details',
            subscription_item_details: { proration: line.proration, subscription: subscription['id'] },
          },
          quantity: line.quantity,
        })),
        has_more: false,
      },
      livemode: false,
      metadata: {},
      number: `FAKE-${String(++invoiceNumber).padStart(4, '0')}`,
      parent: { type: 'subscription_details', subscription_details: { metadata: {}, subscription: subscription['id'] } },
      period_end: state.clock,
      period_start: state.clock,
      status,
      status_transitions: { paid_at: status === 'paid' ? state.clock : null, finalized_at: state.clock },
      subtotal: total,
      total,
    }
    invoice['hosted_invoice_url'] = `${base}/invoices/${invoice['id']}`
    invoice['invoice_pdf'] = `${base}/invoices/${invoice['id']}/pdf`
    invoices.set(invoice['id'], invoice)
    subscription['latest_invoice'] = invoice['id']
    return invoice
  }

  function emit(type: string, object: Json, previous?: Json): Json {
    const event: Json = {
      id: id('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: state.clock,
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }
    events.push(event)
    return event
  }

  const pending: Json[] = []
  async function publish(...list: Json[]): Promise<void> {
    if (!state.deliverEvents) {
      pending.push(...list)
      return
    }
    for (const event of list) {
      const res = await deliver(event)
      answers.push({ event: event['id'], type: event['type'], status: res.status, body: await res.text() })
    }
  }
  /** What the service answered to each event posted as it happened. */
  const answers: Array<{ event: string; type: string; status: number; body: string }> = []

  /** Posts an event to the webhook URL as Stripe does: JSON body, Stripe-Signature over it. */
  async function deliver(event: Json, how: { timestamp?: number; secret?: string; signature?: string } = {}): Promise<Response> {
    const payload = JSON.stringify(event, null, 2)
    const header =
      how.signature ??
      Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: how.secret ?? options.webhookSecret,
        timestamp: how.timestamp ?? Math.floor(Date.now() / 1000),
      })
    return fetch(state.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': header,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
    })
  }

  function periodOf(subscription: Json): { start: number; end: number } {
    const item = subscription['items'].data[0]
    return { start: item.current_period_start, end: item.current_period_end }
  }

  function amountOf(priceId: string, quantity: number): number {
    return (prices.get(priceId)?.['unit_amount'] ?? 0) * quantity
  }

  /** Pays a Checkout Session: a customer's subscription, active, its first invoice paid, the events sent. */
  async function completeCheckout(sessionId: string): Promise<Json> {
    const session = sessions.get(sessionId)
    if (!session) throw new Error(`no session ${sessionId}`)
    if (session['status'] === 'complete') return session
    const interval = prices.get(session['line_items'][0].price)?.['recurring'].interval as 'month' | 'year'
    const start = state.clock
    const end = start + INTERVAL_SECONDS[interval]
    const subscription: Json = {
      id: id('sub'),
      object: 'subscription',
      automatic_tax: { enabled: Boolean(session['automatic_tax']?.enabled), liability: null },
      billing_cycle_anchor: start,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      collection_method: 'charge_automatically',
      created: start,
      currency: 'eur',
      customer: session['customer'],
      description: null,
      ended_at: null,
      items: { object: 'list', data: [] as Json[], has_more: false, url: '' },
      latest_invoice: null,
      livemode: false,
      metadata: { ...(session['subscription_data']?.metadata ?? {}) },
      start_date: start,
      status: 'active',
    }
    subscription['items'].url = `/v1/subscription_items?subscription=${subscription['id']}`
    for (const line of session['line_items'] as Json[])
      subscription['items'].data.push(itemOf(subscription, line['price'], Number(line['quantity'] ?? 1), start, end))
    subscriptions.set(subscription['id'], subscription)
    const invoice = newInvoice(
      subscription,
      subscription['items'].data.map((item: Json) => ({
        amount: amountOf(item['price'].id, item['quantity']),
        description: `${item['quantity']} × ${products.get(item['price'].product)?.['name']}`,
        priceId: item['price'].id,
        quantity: item['quantity'],
        proration: false,
      })),
      'subscription_create',
      'paid',
    )
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: subscription['id'] })
    await publish(
      emit('customer.subscription.created', subscription),
      emit('invoice.paid', invoice),
      emit('checkout.session.completed', session),
    )
    return session
  }

  /** Updates a subscription as POST /v1/subscriptions/:id does, with Stripe's proration. */
  function update(subscription: Json, body: Json): { previous: Json; invoice?: Json } {
    const previous: Json = {}
    if (body['cancel_at_period_end'] !== undefined) {
      previous['cancel_at_period_end'] = subscription['cancel_at_period_end']
      subscription['cancel_at_period_end'] = body['cancel_at_period_end'] === 'true'
      subscription['cancel_at'] = subscription['cancel_at_period_end'] ? periodOf(subscription).end : null
    }
    if (body['metadata']) {
      previous['metadata'] = { ...subscription['metadata'] }
      for (const [key, value] of Object.entries(body['metadata'] as Json)) {
        if (value === '') delete subscription['metadata'][key]
        else subscription['metadata'][key] = value
      }
    }
    if (!body['items']) return { previous }
    previous['items'] = structuredClone(subscription['items'])
    const { start, end } = periodOf(subscription)
    const oldItems: Json[] = structuredClone(subscription['items'].data)
    const items: Json[] = subscription['items'].data
    for (const change of body['items'] as Json[]) {
      if (change['id']) {
        const item = items.find((i) => i['id'] === change['id'])
        if (!item) throw Object.assign(new Error('missing item'), { param: 'items', key: change['id'] })
        if (change['deleted'] === 'true') items.splice(items.indexOf(item), 1)
        else {
          if (change['price']) item['price'] = prices.get(change['price'])
          if (change['quantity']) item['quantity'] = Number(change['quantity'])
        }
      } else items.push(itemOf(subscription, change['price'], Number(change['quantity'] ?? 1), start, end))
    }
    const newInterval = items[0]?.price.recurring.interval as 'month' | 'year'
    const oldInterval = oldItems[0]?.price.recurring.interval
    const behavior = body['proration_behavior'] ?? 'create_prorations'
    if (newInterval !== oldInterval) {
      // A change of interval starts a new period now (Stripe resets the billing cycle anchor).
      const anchorEnd = state.clock + INTERVAL_SECONDS[newInterval]
      for (const item of items) Object.assign(item, { current_period_start: state.clock, current_period_end: anchorEnd })
      subscription['billing_cycle_anchor'] = state.clock
    }
    if (behavior === 'none') return { previous }
    const fraction = Math.max(0, Math.min(1, (end - state.clock) / (end - start)))
    const lines: Array<{ amount: number; description: string; priceId: string; quantity: number; proration: boolean }> = []
    for (const old of oldItems)
      lines.push({
        amount: -Math.round(amountOf(old['price'].id, old['quantity']) * fraction),
        description: `Unused time on ${old['quantity']} × ${products.get(old['price'].product)?.['name']}`,
        priceId: old['price'].id,
        quantity: old['quantity'],
        proration: true,
      })
    const newFraction = newInterval !== oldInterval ? 1 : fraction
    for (const item of items)
      lines.push({
        amount: Math.round(amountOf(item['price'].id, item['quantity']) * newFraction),
        description: `Remaining time on ${item['quantity']} × ${products.get(item['price'].product)?.['name']}`,
        priceId: item['price'].id,
        quantity: item['quantity'],
        proration: true,
      })
    if (behavior === 'always_invoice') return { previous, invoice: newInvoice(subscription, lines, 'subscription_update', 'paid') }
    return { previous }
  }

  async function route(method: string, path: string, query: Json, body: Json): Promise<{ status: number; body: unknown }> {
    let m: RegExpExecArray | null
    const ok = (value: unknown) => ({ status: 200, body: value })
    if (method === 'GET' && (m = /^\/v1\/products\/([^/]+)$/.exec(path))) {
      const product = products.get(decodeURIComponent(m[1]!))
      return product ? ok(product) : missing('product', m[1]!)
    }
    if (method === 'POST' && path === '/v1/products') {
      const productId = body['id'] ?? id('prod')
      if (products.has(productId))
        return error(400, 'invalid_request_error', `Product already exists.`, { code: 'resource_already_exists', param: 'id' })
      const product = {
        id: productId,
        object: 'product',
        active: true,
        created: state.clock,
        default_price: null,
        description: body['description'] ?? null,
        images: [],
        livemode: false,
        marketing_features: [],
        metadata: body['metadata'] ?? {},
        name: body['name'],
        tax_code: null,
        type: 'service',
        updated: state.clock,
        url: null,
      }
      products.set(productId, product)
      return ok(product)
    }
    if (method === 'POST' && (m = /^\/v1\/products\/([^/]+)$/.exec(path))) {
      const product = products.get(m[1]!)
      if (!product) return missing('product', m[1]!)
      if (body['name'] !== undefined) product['name'] = body['name']
      if (body['description'] !== undefined) product['description'] = body['description']
      if (body['active'] !== undefined) product['active'] = body['active'] === 'true'
      product['updated'] = state.clock
      return ok(product)
    }
    if (method === 'GET' && path === '/v1/prices') {
      const keys: string[] | undefined = query['lookup_keys']
      if (keys && keys.length > 10)
        return error(400, 'invalid_request_error', 'You may only specify up to 10 lookup keys.', { param: 'lookup_keys' })
      let found = [...prices.values()]
      if (keys) found = found.filter((p) => keys.includes(p['lookup_key']))
      if (query['active'] !== undefined) found = found.filter((p) => p['active'] === (query['active'] === 'true'))
      return ok(list(found.map(priceView), '/v1/prices'))
    }
    if (method === 'POST' && path === '/v1/prices') {
      if (!products.has(body['product'])) return missing('product', body['product'], 'product')
      const key = body['lookup_key'] ?? null
      const holder = key ? [...prices.values()].find((p) => p['lookup_key'] === key) : undefined
      if (holder) {
        if (body['transfer_lookup_key'] !== 'true')
          return error(400, 'invalid_request_error', `A price (\`${holder['id']}\`) already uses that lookup key.`, { param: 'lookup_key' })
        holder['lookup_key'] = null
      }
      const price = {
        id: id('price'),
        object: 'price',
        active: true,
        billing_scheme: 'per_unit',
        created: state.clock,
        currency: body['currency'],
        livemode: false,
        lookup_key: key,
        metadata: body['metadata'] ?? {},
        nickname: null,
        product: body['product'],
        recurring: body['recurring']
          ? { interval: body['recurring'].interval, interval_count: 1, meter: null, usage_type: 'licensed' }
          : null,
        tax_behavior: body['tax_behavior'] ?? 'unspecified',
        type: body['recurring'] ? 'recurring' : 'one_time',
        unit_amount: Number(body['unit_amount']),
        unit_amount_decimal: String(body['unit_amount']),
      }
      prices.set(price.id, price)
      return ok(price)
    }
    if (method === 'POST' && (m = /^\/v1\/prices\/([^/]+)$/.exec(path))) {
      const price = prices.get(m[1]!)
      if (!price) return missing('price', m[1]!)
      if (body['active'] !== undefined) price['active'] = body['active'] === 'true'
      return ok(price)
    }
    if (method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: id('cus'),
        object: 'customer',
        address: null,
        balance: 0,
        created: state.clock,
        currency: null,
        email: body['email'] ?? null,
        invoice_settings: { default_payment_method: null },
        livemode: false,
        metadata: body['metadata'] ?? {},
        name: null,
        tax_exempt: 'none',
      }
      customers.set(customer.id, customer)
      return ok(customer)
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (body['mode'] !== 'subscription') return error(400, 'invalid_request_error', 'Only subscription mode is faked.', { param: 'mode' })
      if (!customers.has(body['customer'])) return missing('customer', body['customer'], 'customer')
      const lines: Json[] = body['line_items'] ?? []
      for (const [i, line] of lines.entries()) {
        const price = prices.get(line['price'])
        if (!price) return missing('price', line['price'], `line_items[${i}][price]`)
        if (!price['active'])
          return error(400, 'invalid_request_error', `The price specified is inactive.`, { param: `line_items[${i}][price]` })
      }
      const intervals = new Set(lines.map((l) => prices.get(l['price'])?.['recurring']?.interval))
      if (intervals.size !== 1)
        return error(400, 'invalid_request_error', 'Checkout does not support multiple prices with different billing intervals.', {
          param: 'line_items',
        })
      const sessionId = id('cs_test')
      const session: Json = {
        id: sessionId,
        object: 'checkout.session',
        automatic_tax: { enabled: body['automatic_tax']?.enabled === 'true', liability: null, status: null },
        billing_address_collection: body['billing_address_collection'] ?? null,
        cancel_url: body['cancel_url'] ?? null,
        client_reference_id: body['client_reference_id'] ?? null,
        created: state.clock,
        currency: 'eur',
        customer: body['customer'],
        expires_at: state.clock + DAY,
        line_items: lines,
        livemode: false,
        metadata: body['metadata'] ?? {},
        mode: 'subscription',
        payment_status: 'unpaid',
        status: 'open',
        subscription: null,
        subscription_data: body['subscription_data'] ?? {},
        success_url: body['success_url'],
        tax_id_collection: { enabled: body['tax_id_collection']?.enabled === 'true', required: 'never' },
        url: `${base}/checkout/${sessionId}`,
      }
      sessions.set(sessionId, session)
      const { line_items: _lines, subscription_data: _data, ...shown } = session
      return ok(shown)
    }
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const session = sessions.get(m[1]!)
      if (!session) return missing('checkout.session', m[1]!)
      const { line_items: _lines, subscription_data: _data, ...shown } = session
      return ok(shown)
    }
    if (method === 'GET' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const subscription = subscriptions.get(m[1]!)
      return subscription ? ok(subscription) : missing('subscription', m[1]!)
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      let found = [...subscriptions.values()].filter((s) => !query['customer'] || s['customer'] === query['customer'])
      if (query['status'] !== 'all') found = found.filter((s) => !['canceled', 'incomplete_expired'].includes(s['status']))
      return ok(
        list(
          found.sort((a, b) => b['created'] - a['created']),
          '/v1/subscriptions',
        ),
      )
    }
    if (method === 'POST' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const subscription = subscriptions.get(m[1]!)
      if (!subscription) return missing('subscription', m[1]!)
      if (subscription['status'] === 'canceled')
        return error(400, 'invalid_request_error', 'A canceled subscription can only update its cancellation_details and metadata.')
      for (const [i, change] of ((body['items'] ?? []) as Json[]).entries()) {
        if (change['price'] && !prices.get(change['price'])?.['active']) return missing('price', change['price'], `items[${i}][price]`)
      }
      let result: { previous: Json; invoice?: Json }
      try {
        result = update(subscription, body)
      } catch (failure) {
        return error(400, 'invalid_request_error', `Invalid subscription_item: ${(failure as { key?: string }).key}`, { param: 'items' })
      }
      const list = [emit('customer.subscription.updated', subscription, result.previous)]
      if (result.invoice) list.push(emit('invoice.paid', result.invoice))
      await publish(...list)
      return ok(subscription)
    }
    if (method === 'DELETE' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      // Cancels at once (Stripe's subscriptions.cancel): no refund unless asked, the end announced.
      const subscription = subscriptions.get(m[1]!)
      if (!subscription) return missing('subscription', m[1]!)
      if (subscription['status'] === 'canceled')
        return error(400, 'invalid_request_error', 'This subscription has already been canceled.', { code: 'resource_missing' })
      Object.assign(subscription, { status: 'canceled', canceled_at: state.clock, ended_at: state.clock })
      await publish(emit('customer.subscription.deleted', subscription))
      return ok(subscription)
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(body['customer'])) return missing('customer', body['customer'], 'customer')
      const session = {
        id: id('bps'),
        object: 'billing_portal.session',
        configuration: 'bpc_fake',
        created: state.clock,
        customer: body['customer'],
        livemode: false,
        locale: null,
        return_url: body['return_url'] ?? null,
        url: `${base}/portal/${body['customer']}`,
      }
      return ok(session)
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const found = [...invoices.values()]
        .filter((i) => !query['customer'] || i['customer'] === query['customer'])
        .sort((a, b) => b['created'] - a['created'] || (b['number'] > a['number'] ? 1 : -1))
        .slice(0, Number(query['limit'] ?? 10))
      return ok(list(found, '/v1/invoices'))
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`)
  }

  async function checkoutPage(req: IncomingMessage, res: ServerResponse, sessionId: string): Promise<void> {
    const session = sessions.get(sessionId)
    if (!session) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('No such session')
      return
    }
    if (req.method === 'POST') {
      await completeCheckout(sessionId)
      res.writeHead(303, { location: String(session['success_url']).replace('{CHECKOUT_SESSION_ID}', sessionId) }).end()
      return
    }
    const lines = (session['line_items'] as Json[]).map((l) => {
      const price = prices.get(l['price'])!
      return `<li>${l['quantity'] ?? 1} × ${products.get(price['product'])?.['name']}: ${(price['unit_amount'] / 100).toFixed(2)} EUR / ${price['recurring'].interval}</li>`
    })
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html lang="en"><title>Checkout (test)</title><h1>Pay</h1><ul>${lines.join('')}</ul><form method="post"><button type="submit">Pay</button></form></html>`,
      )
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake')
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), 'stripe-version': Stripe.API_VERSION })
        res.end(JSON.stringify(body))
      }
      let m: RegExpExecArray | null
      if ((m = /^\/checkout\/([^/]+)$/.exec(url.pathname))) {
        checkoutPage(req, res, m[1]!).catch((e: unknown) => res.writeHead(500).end(String(e)))
        return
      }
      if (!url.pathname.startsWith('/v1/')) return answer(404, { error: { type: 'invalid_request_error', message: 'Not found' } })
      if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
        return answer(401, {
          error: {
            type: 'invalid_request_error',
            message: `Invalid API Key provided: ${String(req.headers.authorization).slice(7, 15)}***`,
          },
        })
      }
      if (state.failNext > 0) {
        state.failNext--
        return answer(500, { error: { type: 'api_error', message: 'An unknown error occurred' } })
      }
      const body = parseForm(Buffer.concat(chunks).toString('utf8'))
      const query = parseForm(url.search.slice(1))
      requests.push({ method: req.method ?? 'GET', path: url.pathname, body })
      route(req.method ?? 'GET', url.pathname, query, body).then(
        (result) => answer(result.status, result.body),
        (e: unknown) => answer(500, { error: { type: 'api_error', message: String(e) } }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  cleanUpAfter(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const subscriptionOf = (subscriptionId: string) => {
    const subscription = subscriptions.get(subscriptionId)
    if (!subscription) throw new Error(`no subscription ${subscriptionId}`)
    return subscription
  }

  return {
    url: base,
    state,
    products,
    prices,
    customers,
    sessions,
    subscriptions,
    invoices,
    events,
    requests,
    pending,
    answers,
    deliver,
    completeCheckout,
    /** The newest subscription of a customer. */
    subscriptionOfCustomer(customerId: string): Json | undefined {
      return [...subscriptions.values()].filter((s) => s['customer'] === customerId).sort((a, b) => b['created'] - a['created'])[0]
    },
    /** A renewal's payment fails: the invoice stays open, the subscription is past_due while Stripe retries. */
    async failPayment(subscriptionId: string): Promise<void> {
      const subscription = subscriptionOf(subscriptionId)
      const invoice = newInvoice(
        subscription,
        subscription['items'].data.map((item: Json) => ({
          amount: amountOf(item['price'].id, item['quantity']),
          description: `${item['quantity']} × ${products.get(item['price'].product)?.['name']}`,
          priceId: item['price'].id,
          quantity: item['quantity'],
          proration: false,
        })),
        'subscription_cycle',
        'open',
      )
      const previous = { status: subscription['status'] }
      subscription['status'] = 'past_due'
      await publish(emit('invoice.payment_failed', invoice), emit('customer.subscription.updated', subscription, previous))
    },
    /** A retry succeeds: the open invoice is paid, the subscription active again. */
    async recoverPayment(subscriptionId: string): Promise<void> {
      const subscription = subscriptionOf(subscriptionId)
      const invoice = invoices.get(subscription['latest_invoice'])!
      Object.assign(invoice, { status: 'paid', amount_paid: invoice['amount_due'], amount_remaining: 0, attempt_count: 2 })
      const previous = { status: subscription['status'] }
      subscription['status'] = 'active'
      await publish(emit('invoice.paid', invoice), emit('customer.subscription.updated', subscription, previous))
    },
    /** Every retry failed and the account's settings cancel the subscription. */
    async exhaustRetries(subscriptionId: string): Promise<void> {
      const subscription = subscriptionOf(subscriptionId)
      Object.assign(subscription, { status: 'canceled', canceled_at: state.clock, ended_at: state.clock })
      await publish(emit('customer.subscription.deleted', subscription))
    },
    /**
     * The fake's clock moves to the end of the period: a subscription that cancels at its end is
     * canceled, another renews (a new period, its invoice paid at the current prices).
     */
    async endPeriod(subscriptionId: string): Promise<void> {
      const subscription = subscriptionOf(subscriptionId)
      const { end } = periodOf(subscription)
      state.clock = end + 1
      if (subscription['cancel_at_period_end']) {
        Object.assign(subscription, { status: 'canceled', canceled_at: state.clock, ended_at: end })
        await publish(emit('customer.subscription.deleted', subscription))
        return
      }
      for (const item of subscription['items'].data as Json[]) {
        const length = INTERVAL_SECONDS[item['price'].recurring.interval as 'month' | 'year']
        Object.assign(item, { current_period_start: end, current_period_end: end + length })
      }
      const invoice = newInvoice(
        subscription,
        subscription['items'].data.map((item: Json) => ({
          amount: amountOf(item['price'].id, item['quantity']),
          description: `${item['quantity']} × ${products.get(item['price'].product)?.['name']}`,
          priceId: item['price'].id,
          quantity: item['quantity'],
          proration: false,
        })),
        'subscription_cycle',
        'paid',
      )
      await publish(emit('customer.subscription.updated', subscription, {}), emit('invoice.paid', invoice))
    },
    /** Sends the events held while `deliverEvents` was false, in the order given (all by default). */
    async deliverPending(order: (events: Json[]) => Json[] = (e) => e): Promise<void> {
      const list = order(pending.splice(0))
      for (const event of list) await deliver(event)
    },
  }
}

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>
