import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { INTERFACE_LABEL, interfaceBundle, salesAgentInterface } from '../../src/agent/interface.ts'
import { buildTestApp } from '../helpers/app.ts'
import { contract } from './contract.ts'

const { app } = await buildTestApp()

describe('published sales-assistant interface', () => {
  it('is labelled sales-agent-public.v2 with the SHA-256 of the canonical JSON Schema bundle', () => {
    const published = salesAgentInterface()
    expect(published.label).toBe('sales-agent-public.v2')
    expect(INTERFACE_LABEL).toBe(published.label)
    const expected = createHash('sha256').update(canonicalize(interfaceBundle())!).digest('hex')
    expect(published.digest).toBe(expected)
    expect(published.digest).toMatch(/^[0-9a-f]{64}$/)
  })

  it('is computed from the schemas the routes validate with', () => {
    const { schemas } = interfaceBundle()
    const swagger = app.swagger() as unknown as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>
    }
    const chatBody = swagger.paths['/api/agent/chat']?.['post']?.requestBody?.content['application/json']?.schema as {
      required: string[]
      properties: Record<string, unknown>
    }
    expect(chatBody.required.sort()).toEqual((schemas['AgentChatRequest'] as { required: string[] }).required.sort())
    expect(Object.keys(chatBody.properties).sort()).toEqual(
      Object.keys((schemas['AgentChatRequest'] as { properties: object }).properties).sort(),
    )
  })

  it('agrees with the contract schemas written from INTERFACE.md on every constraint they share', () => {
    const { schemas } = interfaceBundle() as { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> }
    const pairs: Array<[string, { properties: Record<string, unknown>; required: readonly string[] }]> = [
      ['AgentBootstrapResponse', contract.bootstrap as never],
      ['AgentChatResponse', contract.chat as never],
      ['AgentRateLimitError', contract.rateLimit as never],
      ['AgentTurnInProgressError', contract.turnInProgress as never],
    ]
    for (const [name, written] of pairs) {
      const ours = schemas[name]!
      expect(Object.keys(ours.properties!).sort(), name).toEqual(Object.keys(written.properties).sort())
      expect([...(ours.required ?? [])].sort(), name).toEqual([...written.required].sort())
    }
  })

  it('documents every agent route with a response schema per status', () => {
    const swagger = app.swagger() as unknown as {
      paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>>
    }
    expect(Object.keys(swagger.paths['/api/agent/bootstrap']?.['post']?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '404',
      '429',
      '503',
    ])
    expect(Object.keys(swagger.paths['/api/agent/bootstrap']?.['delete']?.responses ?? {}).sort()).toEqual([
      '204',
      '400',
      '404',
      '429',
      '503',
    ])
    expect(Object.keys(swagger.paths['/api/agent/chat']?.['post']?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '404',
      '409',
      '429',
      '503',
    ])
    expect(Object.keys(swagger.paths['/api/agent/event']?.['post']?.responses ?? {}).sort()).toEqual([
      '200',
      '202',
      '400',
      '404',
      '409',
      '429',
      '503',
    ])
    expect(swagger.paths['/api/agent/chat']?.['post']?.tags).toEqual(['sales-agent'])
  })
})
