import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, MODERN, post, preClaimToken, registerAgent } from './helpers.ts'

const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
const token = await preClaimToken(base, await registerAgent(base))
const auth = { authorization: `Bearer ${token}` }
const metadata = `${base}/.well-known/oauth-protected-resource/mcp`

/** Reads a JSON-RPC answer whether it came as JSON or as one server-sent event. */
async function rpc(res: Response): Promise<{ id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const text = await res.text()
  expect(text).not.toMatch(/at .*\.(ts|js|mjs):\d+/)
  const data = res.headers.get('content-type')?.startsWith('text/event-stream') ? /^data: (.+)$/m.exec(text)?.[1] : text
  return JSON.parse(data ?? 'null')
}

describe('Streamable HTTP, stateless, for every revision', () => {
  it('serves a 2026-07-28 client pinned to that revision', async () => {
    const client = await connect(base, token, 'modern')
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
    expect(client.getProtocolEra()).toBe('modern')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('get_pricing')
    expect((await client.callTool({ name: 'get_pricing', arguments: {} })).isError).toBeFalsy()
  })

  it('a client negotiating (mode auto) settles on 2026-07-28', async () => {
    const client = await connect(base, token, 'legacy', { versionNegotiation: { mode: 'auto' } })
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
  })

  it('matches the server card: revision, server info and capabilities', async () => {
    const card = (await (await fetch(`${base}/.well-known/mcp/server-card.json`)).json()) as {
      protocolVersion: string
      serverInfo: object
      capabilities: object
      transport: { endpoint: string }
    }
    const client = await connect(base, token, 'modern')
    expect(card.protocolVersion).toBe(client.getNegotiatedProtocolVersion())
    expect(client.getServerVersion()).toMatchObject(card.serverInfo)
    expect(client.getServerCapabilities()).toMatchObject(card.capabilities)
    expect(card.transport.endpoint).toBe(`${base}/mcp`)
  })

  it('serves a 2025-11-25 client with the plain initialize handshake', async () => {
    const client = await connect(base, token, 'legacy')
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25')
    expect(client.getServerVersion()).toMatchObject({ name: 'web-presence', version: '1.1.0' })
    expect((await client.callTool({ name: 'get_pricing', arguments: {} })).structuredContent).toMatchObject({ currency: 'EUR' })
  })

  it('serves a 2025-06-18 client at that revision', async () => {
    const client = await connect(base, token, 'legacy', { supportedProtocolVersions: ['2025-06-18'] })
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-06-18')
    expect((await client.listTools()).tools.length).toBeGreaterThan(3)
    const init = await rpc(
      await post(
        base,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        },
        auth,
      ),
    )
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'web-presence' } })
  })

  it('answers exactly the revisions the README names, and needs both types in Accept', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const sentence = /Protocol revisions\s+answered:([\s\S]*?)\(an initialize naming another revision/.exec(readme)?.[1] ?? ''
    const named = sentence.match(/\d{4}-\d{2}-\d{2}/g) ?? []
    expect(named).toEqual([MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'])
    const initialize = (protocolVersion: string) =>
      post(
        base,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        },
        auth,
      )
    for (const revision of named.slice(1)) {
      expect((await rpc(await initialize(revision))).result, revision).toMatchObject({ protocolVersion: revision })
      expect(
        (await post(base, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': revision })).status,
        revision,
      ).toBe(200)
    }
    // Another revision in initialize is answered with the newest handshake revision; in the header it is refused.
    expect((await rpc(await initialize('2099-01-01'))).result).toMatchObject({ protocolVersion: '2025-11-25' })
    expect(
      (await post(base, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': '2099-01-01' })).status,
    ).toBe(400)
    // No header: taken as 2025-03-26.
    expect((await post(base, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, auth)).status).toBe(200)
    for (const accept of ['application/json', 'text/event-stream', '*/*']) {
      const res = await post(
        base,
        { jsonrpc: '2.0', id: 5, method: 'tools/list' },
        { ...auth, accept, 'mcp-protocol-version': '2025-06-18' },
      )
      expect(res.status, accept).toBe(406)
      expect((await rpc(res)).error?.message, accept).toMatch(/both application\/json and text\/event-stream/)
    }
  })

  it('keeps the service headers on MCP answers: request id, security headers, rate limit', async () => {
    const res = await post(base, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': '2025-06-18' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(/.+/)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0)
    expect((await rpc(res)).id).toBe(7)
  })
})

describe('authorization', () => {
  it('answers 401 with the resource metadata challenge without a token', async () => {
    const res = await post(base, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}", scope="mcp:read"`)
    const discovered = (await (await fetch(metadata)).json()) as { resource: string; scopes_supported: string[] }
    expect(discovered).toMatchObject({ resource: `${base}/mcp`, scopes_supported: ['mcp:read', 'mcp:tools'] })
  })

  it('answers 401 invalid_token for a forged token, a malformed header and a revoked token', async () => {
    const [header, payload, signature] = token.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'mcp:read mcp:tools' })).toString('base64url')}.${signature}`
    for (const authorization of [`Bearer ${forged}`, `Bearer ${token} extra`, `Basic ${token}`]) {
      const res = await post(base, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization })
      expect(res.status, authorization.slice(0, 12)).toBe(401)
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${metadata}"`)
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_(token|request)"/)
    }

    const own = await preClaimToken(base, await registerAgent(base))
    expect(
      (
        await post(
          base,
          { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          { authorization: `Bearer ${own}`, 'mcp-protocol-version': '2025-06-18' },
        )
      ).status,
    ).toBe(200)
    const revoke = await fetch(`${base}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: own }) })
    expect(revoke.status).toBe(200)
    const after = await post(base, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${own}` })
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(after.headers.get('www-authenticate')).toContain('revoked')
  })

  it('refuses a Host or Origin that is not this service (DNS rebinding)', async () => {
    const host = new URL(base).host
    const evilHost = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...auth, host: 'evil.example', 'content-type': 'application/json' },
      payload: '{}',
    })
    expect(evilHost.statusCode).toBe(403)
    expect(evilHost.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } })
    const evilOrigin = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...auth, host, origin: 'http://evil.example', 'content-type': 'application/json' },
      payload: '{}',
    })
    expect(evilOrigin.statusCode).toBe(403)
    const ownOrigin = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        ...auth,
        host,
        origin: base,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    expect(ownOrigin.statusCode).toBe(200)
  })
})

describe('bad input gets JSON-RPC errors or tool errors, never a 500', () => {
  const call = (params: object) => ({ jsonrpc: '2.0', id: 3, method: 'tools/call', params })

  it('malformed JSON: parse error', async () => {
    const res = await post(base, '{"jsonrpc": "2.0", "id": ', auth)
    expect(res.status).toBe(400)
    expect((await rpc(res)).error).toMatchObject({ code: -32700 })
  })

  it('a body only the SDK reads as JSON (after a byte-order mark) is answered as without the mark', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' })
    const plain = await post(base, list, auth)
    const marked = await post(base, `\uFEFF${list}`, auth)
    expect([marked.status, plain.status]).toEqual([200, 200])
    const [a, b] = [await rpc(marked), await rpc(plain)]
    expect(a.id).toBe(4)
    expect(a.result).toEqual(b.result)
  })

  it('a body that is not JSON-RPC: invalid request', async () => {
    const res = await post(base, { hello: 'world' }, auth)
    expect(res.status).toBe(400)
    expect((await rpc(res)).error).toMatchObject({ code: -32600 })
  })

  it('batch arrays: invalid request', async () => {
    const res = await post(base, ` [${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}]`, auth)
    expect(res.status).toBe(400)
    expect((await rpc(res)).error).toMatchObject({ code: -32600, message: expect.stringContaining('Batch') })
  })

  it('unknown methods and unknown tools', async () => {
    expect((await rpc(await post(base, { jsonrpc: '2.0', id: 1, method: 'sites/destroy', params: {} }, auth))).error).toMatchObject({
      code: -32601,
    })
    const unknown = await rpc(await post(base, call({ name: 'drop_database', arguments: {} }), auth))
    expect(unknown.error).toMatchObject({ code: -32602, message: expect.stringContaining('drop_database') })
    const client = await connect(base, token)
    await expect(client.callTool({ name: 'drop_database', arguments: {} })).rejects.toThrow(/drop_database/)
  })

  it('arguments failing the input schema: a tool error naming the field', async () => {
    const client = await connect(base, token)
    const wrongType = await client.callTool({ name: 'audit_domain', arguments: { domain: 5 } })
    expect(wrongType.isError).toBe(true)
    expect((wrongType.content as Array<{ text: string }>)[0]!.text).toMatch(/domain/)
    const extra = await client.callTool({ name: 'get_pricing', arguments: { admin: true } })
    expect(extra.isError).toBe(true)
    const tooLong = await client.callTool({ name: 'audit_domain', arguments: { domain: 'a'.repeat(400) } })
    expect(tooLong.isError).toBe(true)
  })

  it('huge params: 413 in JSON-RPC shape', async () => {
    const res = await post(base, call({ name: 'get_pricing', arguments: { x: 'a'.repeat(2_000_000) } }), auth)
    expect(res.status).toBe(413)
    expect((await rpc(res)).error).toMatchObject({ code: -32600 })
  })

  it('wrong protocol-version headers, wrong media types, no sessions', async () => {
    const unknown = await post(base, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': '1999-01-01' })
    expect(unknown.status).toBe(400)
    expect((await rpc(unknown)).error?.message).toMatch(/protocol version/i)
    const modernWithoutEnvelope = await post(
      base,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { ...auth, 'mcp-protocol-version': MODERN },
    )
    expect(modernWithoutEnvelope.status).toBe(400)
    expect((await rpc(modernWithoutEnvelope)).error).toMatchObject({ code: -32602 })
    const text = await post(base, '{}', { ...auth, 'content-type': 'text/plain' })
    expect(text.status).toBe(415)
    expect((await rpc(text)).error).toMatchObject({ code: -32000 })
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/mcp`, { method, headers: auth })
      expect(res.status).toBe(405)
      expect((await rpc(res)).error).toBeDefined()
    }
  })

  it('a 2026-07-28 tools/call runs the tool its body names, and its Mcp-Name header must agree', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    const modern = (name: string, header: string) =>
      post(
        base,
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: {}, _meta: envelope } },
        { ...auth, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': header },
      )
    const pricing = await rpc(await modern('get_pricing', 'get_pricing'))
    expect(pricing.result?.['structuredContent']).toMatchObject({ plans: expect.any(Array) })
    const mismatch = await modern('get_pricing', 'list_sites')
    expect(mismatch.status).toBe(400)
    expect((await rpc(mismatch)).error?.message).toMatch(/Mcp-Name/)
    // The header's base64 form names the same tool.
    const encoded = await rpc(await modern('get_pricing', `=?base64?${Buffer.from('get_pricing').toString('base64')}?=`))
    expect(encoded.result?.['structuredContent']).toMatchObject({ plans: expect.any(Array) })
    // A tool needing mcp:tools is challenged before it runs, as with every tool registered.
    const stepUp = await modern('create_site', 'create_site')
    expect(stepUp.status).toBe(403)
    expect(stepUp.headers.get('www-authenticate')).toContain('scope="mcp:tools"')
  })

  it('keeps serving after all of that', async () => {
    const client = await connect(base, token)
    expect((await client.callTool({ name: 'get_pricing', arguments: {} })).isError).toBeFalsy()
  })
})
