import type { AssistantCapabilities } from '../../domain/sites/settings.ts'
import type { Locale } from '../../domain/locales.ts'
import type { Passage } from '../knowledge.ts'
import type { AgentAction, AgentMessage, AgentSource, AgentSuggestion, HandoffState } from '../schemas.ts'

export interface TurnInput {
  locale: Locale
  message: string
  /** Path of the page the visitor is on, when the widget sent one. */
  pagePath: string | undefined
  capabilities: AssistantCapabilities
  handoff: HandoffState
  persona: string | undefined
  siteName: string
  /** The site the widget runs on: its own published pages are searched first. */
  siteId?: string | undefined
  /** Earlier messages, loaded only by responders that use them. */
  history: () => Promise<AgentMessage[]>
}

export interface TurnPlan {
  reply: string
  actions?: AgentAction[]
  suggestions?: AgentSuggestion[]
  sources?: AgentSource[]
  /** The visitor asked for a person and the site offers handoff. */
  requestHandoff: boolean
  usage?: { tokens: number }
  /** Passages the answer is grounded in (for a language model to phrase). */
  passages: Passage[]
  /** True when the reply is fixed wording (handoff notices) that no model should rephrase. */
  fixed: boolean
  /** True when nothing answered the question (the reply says so); a compound message drops such parts. */
  unanswered?: boolean
}

export interface Responder {
  readonly name: string
  /** True when answers come at once from this process, so a turn can be answered before it is stored. */
  readonly immediate: boolean
  respond(input: TurnInput): Promise<TurnPlan>
}

export const MAX_REPLY = 1500
/** A typical reply: the answer and a short supporting detail. */
export const SHORT_REPLY = 400

/** Shortens a text to at most `max` characters at a sentence or word boundary. */
export function clip(text: string, max = MAX_REPLY): string {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const sentence = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.\n'), cut.lastIndexOf('! '), cut.lastIndexOf('? '))
  if (sentence > max * 0.5) return cut.slice(0, sentence + 1)
  const space = cut.lastIndexOf(' ')
  return `${cut.slice(0, space > 0 ? space : cut.length)}…`
}
