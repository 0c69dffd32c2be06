import { resolveThemeView, type ResolvedTheme } from '../../domain/sites/themes.ts'
import { fontFaces, type FontLink } from '../assets.ts'

/**
 * The whole stylesheet, inlined in every page (no render-blocking request). The theme's tokens
 * are CSS custom properties (`themeVars`); the rules below only read them. Colours keep at least
 * 4.5:1 contrast (src/domain/sites/themes.ts); one column on phones, a grid from 40em up. Nothing
 * widens the page on a phone: a word or address longer than its line breaks anywhere (which also
 * lets flex and grid items shrink below it), code blocks scroll in their own box and images fit
 * theirs.
 */
const RULES = [
  '*,*::before,*::after{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%}',
  'body{margin:0;font:1.0625rem/1.6 var(--font-body);color:var(--text);background:var(--bg);overflow-wrap:anywhere}',
  'a{color:var(--link)}a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid var(--link);outline-offset:2px}',
  '.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem}.skip:focus{left:.5rem}',
  'header,main,.foot{max-width:60rem;margin:0 auto;padding:1rem}',
  'header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between}',
  '.brand{font:700 1.25rem/1.2 var(--font-heading);text-decoration:none;color:var(--text);display:inline-flex;align-items:center;gap:.6rem}',
  '.brand img{max-height:3rem;width:auto;border-radius:0}',
  'nav ul,ul.social{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}',
  'nav a,.social a{display:inline-block;padding:.25rem 0}nav a[aria-current=page]{font-weight:700;text-decoration-thickness:2px}',
  'nav li ul{display:block;padding-left:1rem;font-size:.95rem}nav li.here>a{font-weight:700}',
  'a.call{display:none;padding:.5rem 1rem;border-radius:var(--radius-button);background:var(--button);color:var(--on-button);text-decoration:none;font-weight:600}@media(max-width:40em){a.call{display:inline-block}}',
  'h1,h2,h3{line-height:1.25;font-family:var(--font-heading);font-weight:700}h1{font-size:clamp(1.9rem,5vw,2.8rem)}',
  'section{margin:2.5rem 0}.lead{font-size:1.2rem;color:var(--muted)}',
  'pre{overflow-x:auto}img{max-width:100%;height:auto;border-radius:var(--radius)}figure{margin:2rem 0}figcaption{color:var(--muted);font-size:.95rem}',
  '.grid{list-style:none;padding:0;display:grid;gap:1.25rem}@media(min-width:40em){.grid{grid-template-columns:repeat(auto-fit,minmax(14rem,1fr))}}',
  '.grid li{padding:1rem;background:var(--surface);border:1px solid var(--border);border-radius:var(--radius)}',
  '.button{display:inline-block;padding:.7rem 1.2rem;border-radius:var(--radius-button);background:var(--button);color:var(--on-button);text-decoration:none;font-weight:600}',
  '.quote blockquote{margin:0;padding-left:1rem;border-left:4px solid var(--link);font-size:1.15rem}',
  'form p{margin:0 0 1rem}label{display:block;font-weight:600}',
  'input,textarea{width:100%;font:inherit;color:inherit;background:#fff;padding:.55rem;border:1px solid #6b6b75;border-radius:var(--radius-input)}',
  '.consent{display:flex;gap:.6rem;align-items:flex-start}.consent input{width:auto;margin-top:.35rem}.consent label{font-weight:400}',
  'button{font:inherit;font-weight:600;padding:.7rem 1.2rem;border:0;border-radius:var(--radius-button);background:var(--button);color:var(--on-button);cursor:pointer}',
  'table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid var(--border);vertical-align:top}',
  '.menu ul{list-style:none;padding:0}.menu li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.25rem 1rem;padding:.6rem 0;border-bottom:1px solid var(--border)}',
  '.menu li p{flex-basis:100%;margin:0;color:var(--muted)}.price{font-weight:700;white-space:nowrap}',
  'address{font-style:normal}',
  'footer{background:var(--surface);border-top:1px solid var(--border);color:var(--muted);font-size:.95rem;margin-top:3rem}',
  'footer a{color:var(--link)}.foot{display:grid;gap:1rem}@media(min-width:40em){.foot{grid-template-columns:repeat(auto-fit,minmax(12rem,1fr))}}',
  '.foot h2{font-size:1rem;margin:0 0 .4rem;color:var(--text)}.foot p,.foot ul{margin:0 0 .4rem}.foot ul{list-style:none;padding:0}',
].join('')

const RADII = {
  square: { radius: '0', button: '0', input: '0' },
  soft: { radius: '.5rem', button: '.4rem', input: '.3rem' },
  round: { radius: '1rem', button: '999px', input: '.6rem' },
} as const

const quoted = (name: string) => `"${name}"`

/** The theme's tokens as custom properties of :root. */
export function themeVars(theme: ResolvedTheme): string {
  const c = theme.colors
  const r = RADII[theme.corners]
  const { heading, body } = theme.fonts
  const stack = (f: { id: string; name: string; fallback: string }) => (f.id ? `${quoted(f.name)},${f.fallback}` : f.fallback)
  return `:root{--bg:${c.background};--surface:${c.surface};--text:${c.text};--muted:${c.muted};--border:${c.border};--link:${c.link};--button:${c.button};--on-button:${c.on_button};--radius:${r.radius};--radius-button:${r.button};--radius-input:${r.input};--font-body:${stack(body)};--font-heading:${stack(heading)}}`
}

/**
 * The theme's stylesheet for a page at `from` in its release: the @font-face rules (their files
 * addressed relative to the page, so the preview prefix works too), the tokens and the rules; and
 * the font files the page preloads (the heading's and the body's).
 */
export function themedStyle(theme: ResolvedTheme, from: string): { css: string; preloads: FontLink[] } {
  const faces = fontFaces(theme.fonts, from)
  return { css: faces.css + themeVars(theme) + RULES, preloads: faces.preloads }
}

/** The style of pages the service answers on a site's origin without its theme (src/sites/no-site-page.ts). */
export const CSS =
  themeVars(resolveThemeView({ preset: 'fresh', brand_color: '#0b57d0', font_pair: 'system', corners: 'soft' })) +
  RULES.replace('footer{background:var(--surface);', 'footer{')
