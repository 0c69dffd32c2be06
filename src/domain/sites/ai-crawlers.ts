/** What an AI crawler fetches for; a site's robots.txt lets each purpose in or not (DESIGN.md 7). */
export type CrawlerPurpose = 'search' | 'user_action' | 'training'

/**
 * AI crawlers by what their operator says they do: the list hosted sites' robots.txt names and
 * the SEO audit checks. Blocking a training crawler is a legitimate choice.
 */
export const AI_CRAWLERS: ReadonlyArray<{ agent: string; operator: string; purpose: CrawlerPurpose }> = [
  { agent: 'OAI-SearchBot', operator: 'OpenAI', purpose: 'search' },
  { agent: 'Claude-SearchBot', operator: 'Anthropic', purpose: 'search' },
  { agent: 'PerplexityBot', operator: 'Perplexity', purpose: 'search' },
  { agent: 'DuckAssistBot', operator: 'DuckDuckGo', purpose: 'search' },
  { agent: 'ChatGPT-User', operator: 'OpenAI', purpose: 'user_action' },
  { agent: 'Claude-User', operator: 'Anthropic', purpose: 'user_action' },
  { agent: 'Perplexity-User', operator: 'Perplexity', purpose: 'user_action' },
  { agent: 'MistralAI-User', operator: 'Mistral AI', purpose: 'user_action' },
  { agent: 'GPTBot', operator: 'OpenAI', purpose: 'training' },
  { agent: 'ClaudeBot', operator: 'Anthropic', purpose: 'training' },
  { agent: 'Google-Extended', operator: 'Google', purpose: 'training' },
  { agent: 'Applebot-Extended', operator: 'Apple', purpose: 'training' },
  { agent: 'CCBot', operator: 'Common Crawl', purpose: 'training' },
  { agent: 'meta-externalagent', operator: 'Meta', purpose: 'training' },
  { agent: 'Bytespider', operator: 'ByteDance', purpose: 'training' },
]

export const CRAWLER_PURPOSES: readonly CrawlerPurpose[] = ['search', 'user_action', 'training']
