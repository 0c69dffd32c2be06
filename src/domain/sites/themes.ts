import { Type, type Static } from 'typebox'
import { literalUnion } from '../../schemas.ts'
import { AA_TEXT, contrast, darkenedFor } from './contrast.ts'
import type { SiteSettings } from './settings.ts'

/**
 * How a site looks (DESIGN.md 15): a preset (a palette, a font pair and a corner style), the
 * owner's brand colour, a font pair and corners. Kept in the site's settings as `theme`, with only
 * what the owner chose; `resolveTheme` fills in the rest from the preset and keeps every text and
 * button at WCAG AA contrast whatever colour was chosen.
 */

export const CORNERS = ['square', 'soft', 'round'] as const
export type Corners = (typeof CORNERS)[number]

/** One family of a font pair, served from the site itself (woff2 of an @fontsource package). */
export interface FontFamily {
  /** The @fontsource package's name, and the prefix of its files. */
  id: string
  name: string
  /** What the browser falls back to while the font loads (font-display: swap) or if it fails. */
  fallback: string
}

export interface FontPair {
  id: string
  name: string
  heading: FontFamily
  body: FontFamily
}

const SANS = 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif'
const SERIF = 'Georgia,"Times New Roman",serif'
const family = (id: string, name: string, fallback: string): FontFamily => ({ id, name, fallback })
const INTER = family('inter', 'Inter', SANS)
const SOURCE_SANS = family('source-sans-3', 'Source Sans 3', SANS)
const PLAYFAIR = family('playfair-display', 'Playfair Display', SERIF)
const LORA = family('lora', 'Lora', SERIF)
const MERRIWEATHER = family('merriweather', 'Merriweather', SERIF)
const MONTSERRAT = family('montserrat', 'Montserrat', SANS)
const NUNITO = family('nunito', 'Nunito', SANS)

/** Every font a pair may use; their files are shipped with the service (src/sites/assets.ts). */
export const FONT_FAMILIES: readonly FontFamily[] = [INTER, SOURCE_SANS, PLAYFAIR, LORA, MERRIWEATHER, MONTSERRAT, NUNITO]

/**
 * The curated pairs, all open-licence (SIL OFL). `system` downloads nothing: the visitor's own
 * fonts, as sites looked before themes; a site without a theme keeps it.
 */
export const FONT_PAIRS = [
  { id: 'modern', name: 'Modern (Inter)', heading: INTER, body: INTER },
  { id: 'classic', name: 'Classic (Playfair Display and Source Sans 3)', heading: PLAYFAIR, body: SOURCE_SANS },
  { id: 'editorial', name: 'Editorial (Lora and Inter)', heading: LORA, body: INTER },
  { id: 'sturdy', name: 'Sturdy (Merriweather and Source Sans 3)', heading: MERRIWEATHER, body: SOURCE_SANS },
  { id: 'geometric', name: 'Geometric (Montserrat and Inter)', heading: MONTSERRAT, body: INTER },
  { id: 'friendly', name: 'Friendly (Nunito)', heading: NUNITO, body: NUNITO },
  {
    id: 'system',
    name: 'The visitor’s own fonts (nothing to download)',
    heading: family('', 'System', SANS),
    body: family('', 'System', SANS),
  },
] as const satisfies readonly FontPair[]
export type FontPairId = (typeof FONT_PAIRS)[number]['id']
export const FONT_PAIR_IDS = [
  'modern',
  'classic',
  'editorial',
  'sturdy',
  'geometric',
  'friendly',
  'system',
] as const satisfies readonly FontPairId[]

/** A palette's fixed colours; the brand colour comes from the theme. */
export interface Palette {
  background: string
  /** Cards, the footer: a shade apart from the background. */
  surface: string
  text: string
  /** Secondary text (captions, the footer). */
  muted: string
  border: string
}

export interface Preset {
  id: string
  name: string
  description: string
  palette: Palette
  brand_color: string
  font_pair: FontPairId
  corners: Corners
}

export const PRESETS = [
  {
    id: 'fresh',
    name: 'Fresh',
    description: 'White and clear blue, a modern sans-serif: fits any business.',
    palette: { background: '#ffffff', surface: '#f3f6fb', text: '#1b1b1f', muted: '#4a4a52', border: '#d7d7de' },
    brand_color: '#0b57d0',
    font_pair: 'modern',
    corners: 'soft',
  },
  {
    id: 'bakery',
    name: 'Warm bakery',
    description: 'Cream and terracotta with a classic serif: bakeries, cafés, delis.',
    palette: { background: '#fffaf3', surface: '#f7ecdd', text: '#2b2118', muted: '#5c4a3a', border: '#e3d3bf' },
    brand_color: '#a3461a',
    font_pair: 'classic',
    corners: 'round',
  },
  {
    id: 'bistro',
    name: 'Bistro',
    description: 'Deep red on warm white, an editorial serif: restaurants and bars.',
    palette: { background: '#fffdfa', surface: '#f6eeea', text: '#221a18', muted: '#584b47', border: '#e4d6d0' },
    brand_color: '#9b1c2e',
    font_pair: 'editorial',
    corners: 'soft',
  },
  {
    id: 'salon',
    name: 'Salon',
    description: 'Soft rose and plum, a friendly rounded sans-serif: hair, beauty and wellness.',
    palette: { background: '#fffafb', surface: '#f8eef2', text: '#23181d', muted: '#5a4850', border: '#ead8df' },
    brand_color: '#8e2f62',
    font_pair: 'friendly',
    corners: 'round',
  },
  {
    id: 'workshop',
    name: 'Workshop',
    description: 'Sturdy orange on white, a strong geometric sans-serif: trades and repairs.',
    palette: { background: '#ffffff', surface: '#f4f4f2', text: '#1a1a18', muted: '#4b4b46', border: '#d9d9d3' },
    brand_color: '#b34700',
    font_pair: 'geometric',
    corners: 'square',
  },
  {
    id: 'studio',
    name: 'Studio',
    description: 'Calm navy and grey, a serif for headings: consultants, coaches, offices.',
    palette: { background: '#ffffff', surface: '#f2f4f8', text: '#1c2230', muted: '#4a5060', border: '#d5d9e2' },
    brand_color: '#1d3a6e',
    font_pair: 'sturdy',
    corners: 'square',
  },
  {
    id: 'practice',
    name: 'Practice',
    description: 'Clean teal and white, easy to read: health practices and therapists.',
    palette: { background: '#fbfdfd', surface: '#eef6f6', text: '#13201f', muted: '#44524f', border: '#d3e2e0' },
    brand_color: '#0f6b66',
    font_pair: 'modern',
    corners: 'soft',
  },
  {
    id: 'meadow',
    name: 'Meadow',
    description: 'Fresh green on light sand, friendly type: shops, clubs and associations.',
    palette: { background: '#fbfbf6', surface: '#eef3e6', text: '#1b2216', muted: '#4a5342', border: '#d8dfcc' },
    brand_color: '#2f6b2a',
    font_pair: 'friendly',
    corners: 'round',
  },
] as const satisfies readonly Preset[]
export type PresetId = (typeof PRESETS)[number]['id']
export const PRESET_IDS = [
  'fresh',
  'bakery',
  'bistro',
  'salon',
  'workshop',
  'studio',
  'practice',
  'meadow',
] as const satisfies readonly PresetId[]

const BrandColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'The brand colour, #rrggbb' })

/** The theme as clients see it and send it (every field optional in a change). */
export const themeFields = {
  preset: literalUnion(PRESET_IDS),
  brand_color: BrandColor,
  font_pair: literalUnion(FONT_PAIR_IDS),
  corners: literalUnion(CORNERS),
}
export const Theme = Type.Object(themeFields, {
  additionalProperties: false,
  description:
    'How the site looks: a preset, the brand colour (darkened for buttons and links where white text or the page would not reach WCAG AA contrast), the font pair and the corners',
})
export const ThemeInput = Type.Object(
  {
    preset: Type.Optional(themeFields.preset),
    brand_color: Type.Optional(themeFields.brand_color),
    font_pair: Type.Optional(themeFields.font_pair),
    corners: Type.Optional(themeFields.corners),
  },
  {
    additionalProperties: false,
    description: 'A new preset brings its own colour, fonts and corners; the other fields given with it (or alone) change just themselves',
  },
)
export type ThemeView = Static<typeof Theme>
export type ThemeInput = Static<typeof ThemeInput>

/** What a site without a chosen theme looks like: the Fresh preset in the visitor's own fonts. */
const DEFAULT_THEME: ThemeView = { preset: 'fresh', brand_color: '#0b57d0', font_pair: 'system', corners: 'soft' }

export function presetOf(id: string): Preset {
  return PRESETS.find((p) => p.id === id) ?? PRESETS[0]
}

export function fontPairOf(id: string): FontPair {
  return FONT_PAIRS.find((p) => p.id === id) ?? FONT_PAIRS[0]
}

function storedTheme(settings: SiteSettings): Partial<ThemeView> | undefined {
  const theme = (settings as { theme?: unknown }).theme
  return theme && typeof theme === 'object' ? (theme as Partial<ThemeView>) : undefined
}

/** The site's theme with the preset's values where the owner chose none. */
export function themeView(settings: SiteSettings): ThemeView {
  const stored = storedTheme(settings)
  if (!stored) return { ...DEFAULT_THEME }
  const preset = presetOf(stored.preset ?? DEFAULT_THEME.preset)
  return {
    preset: preset.id as ThemeView['preset'],
    brand_color: (stored.brand_color ?? preset.brand_color).toLowerCase(),
    font_pair: stored.font_pair ?? preset.font_pair,
    corners: stored.corners ?? preset.corners,
  }
}

/**
 * Settings with a theme change applied. Choosing another preset takes its colour, fonts and
 * corners, except those given in the same change; a change without a preset keeps the rest.
 */
export function withTheme(settings: SiteSettings, patch: ThemeInput): SiteSettings {
  const current = storedTheme(settings) ?? {}
  const fresh = patch.preset !== undefined && patch.preset !== current.preset
  const base: Partial<ThemeView> = fresh ? { preset: patch.preset } : { preset: current.preset ?? DEFAULT_THEME.preset, ...current }
  const next: Partial<ThemeView> = { ...base }
  if (patch.brand_color !== undefined) next.brand_color = patch.brand_color.toLowerCase()
  if (patch.font_pair !== undefined) next.font_pair = patch.font_pair
  if (patch.corners !== undefined) next.corners = patch.corners
  // A site that had no theme keeps the visitor's fonts until a preset or a pair is chosen.
  if (!storedTheme(settings) && patch.preset === undefined && patch.font_pair === undefined) next.font_pair = DEFAULT_THEME.font_pair
  return { ...settings, theme: next } as SiteSettings
}

/** The colours a page is drawn with, every pair of text and background at AA. */
export interface ThemeColors extends Palette {
  /** Links and accents on the background. */
  link: string
  /** Buttons: their background and their text. */
  button: string
  on_button: string
}

export interface ResolvedTheme extends ThemeView {
  colors: ThemeColors
  fonts: FontPair
  /** True when the brand colour had to be darkened for buttons or links (the dashboard says so). */
  brand_adjusted: boolean
}

/**
 * Everything a page needs to draw the theme. Buttons carry white text on the brand colour,
 * darkened until white reaches 4.5:1; links are the brand colour darkened until it reaches 4.5:1
 * on the page's background and on its surface.
 */
export function resolveTheme(settings: SiteSettings): ResolvedTheme {
  return resolveThemeView(themeView(settings))
}

export function resolveThemeView(view: ThemeView): ResolvedTheme {
  const preset = presetOf(view.preset)
  const palette = preset.palette
  const brand = view.brand_color.toLowerCase()
  const button = darkenedFor(brand, '#ffffff')
  const link = darkenedFor(darkenedFor(brand, palette.background), palette.surface)
  return {
    ...view,
    colors: { ...palette, link, button, on_button: '#ffffff' },
    fonts: fontPairOf(view.font_pair),
    brand_adjusted: button !== brand || link !== brand,
  }
}

/** Every text colour of a theme against the backgrounds it is drawn on, for checks and tests. */
export function contrastPairs(theme: ResolvedTheme): Array<{ what: string; ratio: number }> {
  const c = theme.colors
  return [
    { what: 'text on background', ratio: contrast(c.text, c.background) },
    { what: 'text on surface', ratio: contrast(c.text, c.surface) },
    { what: 'muted text on background', ratio: contrast(c.muted, c.background) },
    { what: 'muted text on surface', ratio: contrast(c.muted, c.surface) },
    { what: 'link on background', ratio: contrast(c.link, c.background) },
    { what: 'link on surface', ratio: contrast(c.link, c.surface) },
    { what: 'button text', ratio: contrast(c.on_button, c.button) },
  ]
}

export { AA_TEXT }

// The catalogue every interface lists (GET /v1/themes, GraphQL `themes`, MCP `list_themes`).

const Color = Type.String({ pattern: '^#[0-9a-f]{6}$' })
const strictObject = { additionalProperties: false } as const
const Colors = Type.Object(
  {
    background: Color,
    surface: Color,
    text: Color,
    muted: Color,
    border: Color,
    link: Color,
    button: Color,
    on_button: Color,
  },
  { ...strictObject, description: 'The colours a page is drawn with; every text colour reaches 4.5:1 on its background' },
)
export const ThemeCatalog = Type.Object(
  {
    presets: Type.Array(
      Type.Object(
        {
          id: themeFields.preset,
          name: Type.String(),
          description: Type.String(),
          brand_color: themeFields.brand_color,
          font_pair: themeFields.font_pair,
          corners: themeFields.corners,
          colors: Colors,
        },
        strictObject,
      ),
    ),
    font_pairs: Type.Array(
      Type.Object({ id: themeFields.font_pair, name: Type.String(), heading: Type.String(), body: Type.String() }, strictObject),
    ),
    corners: Type.Array(themeFields.corners),
  },
  { ...strictObject, description: 'The presets, font pairs and corner styles a site’s theme may use' },
)
export type ThemeCatalog = Static<typeof ThemeCatalog>

export function themeCatalog(): ThemeCatalog {
  return {
    presets: PRESETS.map((p) => ({
      id: p.id,
      name: p.name,
      description: p.description,
      brand_color: p.brand_color,
      font_pair: p.font_pair,
      corners: p.corners,
      colors: resolveThemeView({ preset: p.id, brand_color: p.brand_color, font_pair: p.font_pair, corners: p.corners }).colors,
    })),
    font_pairs: FONT_PAIRS.map((f) => ({ id: f.id, name: f.name, heading: f.heading.name, body: f.body.name })),
    corners: [...CORNERS],
  }
}
