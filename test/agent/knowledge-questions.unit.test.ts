import { describe, expect, it } from 'vitest'
import { buildKnowledgeBase, heading } from '../../src/agent/knowledge.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import { stem, words } from '../../src/agent/text.ts'
import { LOCALES, type Locale } from '../../src/domain/locales.ts'
import { turnInput } from './turn-input.ts'

/**
 * Every section of every knowledge page, in every language, answers the questions stored with it:
 * each question (at least three, written as a visitor asks, not the heading's words) finds that
 * section first, and the built-in answer says the section's fact. A section added without its
 * questions or its fact fails here.
 */
const kb = buildKnowledgeBase()

/** A heading's words as stems, small words left out. */
const stems = (text: string, locale: Locale) =>
  new Set(
    words(text)
      .filter((w) => w.length > 3)
      .map((w) => stem(w, locale)),
  )

describe.each(LOCALES)('knowledge sections in %s', (locale) => {
  const passages = kb.passages(locale)

  it('carry at least three visitor questions and a fact the passage states', () => {
    for (const p of passages) {
      expect(new Set(p.questions.map((q) => q.toLowerCase())).size, p.title).toBeGreaterThanOrEqual(3)
      expect(p.fact, p.title).toBeTruthy()
      expect(p.text, p.title).toContain(p.fact)
    }
  })

  it('ask in the visitor’s words, not by repeating the heading', () => {
    const echoes: string[] = []
    for (const p of passages) {
      const title = stems(heading(p), locale)
      for (const q of p.questions) {
        const asked = stems(q, locale)
        if (title.size > 0 && [...title].every((s) => asked.has(s))) echoes.push(`${p.title}: ${q}`)
      }
    }
    expect(echoes).toEqual([])
  })

  it('are found by their questions, and answered with their fact', () => {
    const misses: string[] = []
    for (const p of passages) {
      for (const q of p.questions) {
        const top = kb.search(locale, q, { limit: 1 })[0]?.passage
        if (top !== p) misses.push(`${p.title} ← "${q}" found ${top?.title ?? 'nothing'}`)
        const reply = planTurn(kb, turnInput(locale, q)).reply
        if (!reply.includes(p.fact!)) misses.push(`${p.title} ← "${q}" answered "${reply}"`)
      }
    }
    expect(misses).toEqual([])
  })
})
