import { describe, expect, it } from 'vitest'
import { contrast, luminance } from '../../src/domain/sites/contrast.ts'
import {
  contrastPairs,
  FONT_PAIRS,
  PRESETS,
  resolveThemeView,
  themeCatalog,
  themeView,
  withTheme,
  type ThemeView,
} from '../../src/domain/sites/themes.ts'
import { staticAsset } from '../../src/sites/assets.ts'
import { renderSite } from '../../src/sites/render/index.ts'
import { englishPages, fixtureRenderSite } from '../fixtures/hosted/content.ts'

const now = new Date('2026-11-20T10:00:00Z')

function homeOf(theme: ThemeView): string {
  const files = renderSite(fixtureRenderSite('https://bakery.example', { theme: resolveThemeView(theme) }), englishPages(now))
  return files.find((f) => f.path === '/')!.body
}

describe('contrast', () => {
  it('computes WCAG luminance and ratios (black on white 21:1, the WCAG examples)', () => {
    expect(luminance('#ffffff')).toBeCloseTo(1, 5)
    expect(luminance('#000000')).toBe(0)
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5)
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2)
    expect(contrast('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5)
  })
})

describe('themes', () => {
  it('has eight presets whose every text colour reaches 4.5:1 on its background', () => {
    expect(PRESETS).toHaveLength(8)
    for (const preset of PRESETS) {
      const theme = resolveThemeView({
        preset: preset.id,
        brand_color: preset.brand_color,
        font_pair: preset.font_pair,
        corners: preset.corners,
      })
      for (const pair of contrastPairs(theme)) expect(pair.ratio, `${preset.id}: ${pair.what}`).toBeGreaterThanOrEqual(4.5)
      // The presets' own colours need no darkening: the owner sees the colour they chose.
      expect(theme.brand_adjusted, preset.id).toBe(false)
    }
  })

  it('darkens a brand colour too light for white text, for buttons and links, keeping its hue; a dark one is kept', () => {
    for (const brand of ['#ffd84d', '#7fd1ff', '#ff9ecb', '#ffffff', '#00ff00', '#e0e0e0']) {
      for (const preset of PRESETS) {
        const theme = resolveThemeView({ preset: preset.id, brand_color: brand, font_pair: 'modern', corners: 'soft' })
        expect(theme.brand_adjusted, brand).toBe(true)
        for (const pair of contrastPairs(theme)) expect(pair.ratio, `${preset.id} ${brand}: ${pair.what}`).toBeGreaterThanOrEqual(4.5)
        // Darkened towards black, not replaced: the channels keep their proportions.
        const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(theme.colors.button.slice(i, i + 2), 16))
        const [r0, g0, b0] = [1, 3, 5].map((i) => Number.parseInt(brand.slice(i, i + 2), 16))
        if (r0! > 0 && g0! > 0) expect(Math.abs(r! / g! - r0! / g0!)).toBeLessThan(0.1)
        expect(b! <= b0!).toBe(true)
      }
    }
    const dark = resolveThemeView({ preset: 'fresh', brand_color: '#1d3a6e', font_pair: 'modern', corners: 'soft' })
    expect(dark.brand_adjusted).toBe(false)
    expect(dark.colors.button).toBe('#1d3a6e')
    expect(dark.colors.link).toBe('#1d3a6e')
  })

  it('keeps the owner’s choices: a new preset brings its own, a field alone changes itself', () => {
    expect(themeView({})).toEqual({ preset: 'fresh', brand_color: '#0b57d0', font_pair: 'system', corners: 'soft' })
    const bakery = withTheme({}, { preset: 'bakery' })
    expect(themeView(bakery)).toEqual({ preset: 'bakery', brand_color: '#a3461a', font_pair: 'classic', corners: 'round' })
    const branded = withTheme(bakery, { brand_color: '#FFD84D' })
    expect(themeView(branded)).toEqual({ preset: 'bakery', brand_color: '#ffd84d', font_pair: 'classic', corners: 'round' })
    const other = withTheme(branded, { preset: 'studio', corners: 'round' })
    expect(themeView(other)).toEqual({ preset: 'studio', brand_color: '#1d3a6e', font_pair: 'sturdy', corners: 'round' })
    // A site that had no theme keeps the visitor's fonts when only its colour changes.
    expect(themeView(withTheme({}, { brand_color: '#123456' })).font_pair).toBe('system')
  })

  it('lists presets with their colours and the font pairs', () => {
    const catalog = themeCatalog()
    expect(catalog.presets.map((p) => p.id)).toEqual(PRESETS.map((p) => p.id))
    expect(catalog.font_pairs.map((p) => p.id)).toEqual(FONT_PAIRS.map((p) => p.id))
    expect(catalog.corners).toEqual(['square', 'soft', 'round'])
  })

  it('renders each preset: tokens in the one inline stylesheet, its fonts from the site (woff2, Latin and Latin Extended, swap), the heading font preloaded', () => {
    for (const preset of PRESETS) {
      const theme = resolveThemeView({
        preset: preset.id,
        brand_color: preset.brand_color,
        font_pair: preset.font_pair,
        corners: preset.corners,
      })
      const page = homeOf(theme)
      expect(page.match(/<style>/g)).toHaveLength(1)
      expect(page).toContain(`--button:${theme.colors.button}`)
      expect(page).toContain(`--bg:${theme.colors.background}`)
      const fonts = FONT_PAIRS.find((f) => f.id === preset.font_pair)!
      const faces = [...page.matchAll(/@font-face\{([^}]*)\}/g)].map((m) => m[1]!)
      expect(faces.length, preset.id).toBeGreaterThanOrEqual(4)
      for (const face of faces) {
        expect(face).toContain('font-display:swap')
        expect(face).toMatch(/unicode-range:U\+/)
        const url = /url\(([^)]+)\)/.exec(face)![1]!
        expect(url).toMatch(/^_wps\/assets\/fonts\/[a-z0-9-]+-latin(-ext)?-(400|700)-normal\.[A-Za-z0-9]{10}\.woff2$/)
        const asset = staticAsset(`/${url}`)!
        expect(asset.contentType).toBe('font/woff2')
        expect(asset.body.subarray(0, 4).toString('latin1')).toBe('wOF2')
      }
      expect(faces.some((f) => f.includes(`font-family:"${fonts.heading.name}"`) && f.includes('font-weight:700'))).toBe(true)
      expect(faces.filter((f) => f.includes('latin-ext')).length).toBe(faces.length / 2)
      const preload = /<link rel="preload" href="([^"]+)" as="font" type="font\/woff2" crossorigin>/.exec(page)
      expect(preload?.[1]).toMatch(new RegExp(`^_wps/assets/fonts/${fonts.heading.id}-latin-700-normal\\.`))
    }
  })

  it('downloads nothing for the visitor’s own fonts', () => {
    const page = homeOf({ preset: 'fresh', brand_color: '#0b57d0', font_pair: 'system', corners: 'soft' })
    expect(page).not.toContain('@font-face')
    expect(page).not.toContain('rel="preload"')
  })
})
