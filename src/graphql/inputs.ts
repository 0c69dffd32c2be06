import type { ValidateFunction } from 'ajv'
import type { Static, TSchema } from 'typebox'
import { BlockPatch, NewBlock, NewDomain, NewPage, NewSite, PagePatch, Rollback, SitePatch } from '../domain/sites/content-inputs.ts'
import { validationMessage, type ValidationIssue } from '../errors.ts'
import { checkedCompiler } from '../infra/unsafe-values.ts'
import { MediaPatch } from '../domain/media/views.ts'
import { badInput, graphqlWording } from './errors.ts'

/**
 * A mutation's `input` as the body REST takes for the same change (its fields in snake_case,
 * without the ids and `ifMatch`), checked against the same schemas by the same compiler as /v1,
 * so both refuse the same input with the same words (BAD_USER_INPUT names the field).
 */

const compile = checkedCompiler(false)
const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/** Fields that are not part of the body: the resource's id, its parent's and the ETag. */
const OUTSIDE_BODY: ReadonlySet<string> = new Set(['id', 'ifMatch', 'siteId', 'pageId'])
/** Objects whose own field names are the schema's (the assistant, the theme); block content is taken as given. */
const NESTED: ReadonlySet<string> = new Set(['assistant', 'theme', 'business'])

function bodyOf(input: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (OUTSIDE_BODY.has(key) || value === undefined) continue
    body[snake(key)] = NESTED.has(key) && value !== null && typeof value === 'object' ? bodyOf(value as Record<string, unknown>) : value
  }
  return body
}

export function checker<S extends TSchema>(schema: S): (input: Record<string, unknown>) => Static<S> {
  const validate: ValidateFunction = compile(schema)
  return (input) => {
    const body = bodyOf(input)
    if (validate(body)) return body as Static<S>
    const { field, message } = validationMessage((validate.errors ?? []) as unknown as ValidationIssue[])
    const named =
      field === undefined
        ? undefined
        : field
            .split('.')
            .map((part) => part.replace(/_([a-z0-9])/g, (_m, letter: string) => letter.toUpperCase()))
            .join('.')
    throw badInput(
      graphqlWording(message.replace('The request body is not in the expected form', 'The input is not in the expected form')),
      named,
    )
  }
}

export const inputs = {
  newSite: checker(NewSite),
  sitePatch: checker(SitePatch),
  newPage: checker(NewPage),
  pagePatch: checker(PagePatch),
  newBlock: checker(NewBlock),
  blockPatch: checker(BlockPatch),
  newDomain: checker(NewDomain),
  rollback: checker(Rollback),
  mediaPatch: checker(MediaPatch),
}

/** Ids are prefixed tokens; anything else names nothing (and never reaches the database). */
export function plausibleId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,100}$/.test(id)
}
