import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { updateAccountSite, type SiteRecord } from '../../../domain/sites/sites.ts'
import { CORNERS, FONT_PAIRS, PRESETS, resolveThemeView, themeView, ThemeInput, type ThemeView } from '../../../domain/sites/themes.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { mayChange, viewOnlyNote } from '../../permissions.ts'
import { crumbs, ownSite, SiteParams, viewOfSite } from './context.ts'
import {
  choice,
  field,
  fieldErrors,
  FormBodySchema,
  formState,
  hidden,
  issuesOf,
  labelsOf,
  problems,
  refusalOf,
  refused,
  refusedState,
  specsOf,
  textOf,
  versionOf,
  type FieldSpec,
  type FormBody,
  type FormState,
} from './form.ts'
import { noticeOf } from './notices.ts'

const BRAND: FieldSpec = {
  name: 'brand_color',
  label: 'Your brand colour',
  hint: 'As # and six digits or letters a–f, such as #a3461a. Buttons and links use it.',
  maxLength: 7,
  format: 'Write the colour as # and six digits or letters a–f, such as #a3461a.',
}
const PRESET: FieldSpec = { name: 'preset', label: 'Style' }
const FONTS: FieldSpec = { name: 'font_pair', label: 'Fonts' }
const CORNER: FieldSpec = { name: 'corners', label: 'Corners' }
const specs = specsOf([PRESET, BRAND, FONTS, CORNER])
const labels = labelsOf(specs)
const CORNER_WORDS: Record<(typeof CORNERS)[number], string> = { square: 'Square', soft: 'Slightly rounded', round: 'Round' }

function valuesOf(theme: ThemeView): Record<string, string> {
  return { preset: theme.preset, brand_color: theme.brand_color, font_pair: theme.font_pair, corners: theme.corners }
}

/** What the form asks for: a newly picked style brings its own colour, fonts and corners unless those were changed too. */
function themeFrom(values: Record<string, string>, saved: ThemeView): Record<string, string> {
  const picked = values['preset'] ?? ''
  if (picked !== saved.preset) {
    const preset = PRESETS.find((p) => p.id === picked)
    if (preset) {
      const kept = (name: keyof ThemeView, own: string) => (values[name] === saved[name] ? own : (values[name] ?? ''))
      return {
        preset: picked,
        brand_color: kept('brand_color', preset.brand_color),
        font_pair: kept('font_pair', preset.font_pair),
        corners: kept('corners', preset.corners),
      }
    }
  }
  return values
}

function previewAddress(site: SiteRecord, theme: Record<string, string>): string {
  return `/s/${site.id}/_draft/?${new URLSearchParams(theme)}`
}

function render(app: FastifyInstance, reply: FastifyReply, site: SiteRecord, state: FormState, notice: { notice?: string } = {}) {
  const may = mayChange(reply.request.person)
  const shown = may ? state : { ...state, readOnly: true }
  const valid = issuesOf(ThemeInput, shown.values).length === 0
  const theme = valid ? resolveThemeView(shown.values as ThemeView) : undefined
  const adjusted =
    theme?.brand_adjusted === true
      ? html`<p class="notice" id="contrast-note">Your colour is too light for everyone to read white text on it, so buttons use ${theme.colors.button} and links ${theme.colors.link}: a darker shade of it.</p>`
      : ''
  const body = html`${crumbs([[site.name, `/app/sites/${site.id}`], ['Look']])}
${may ? '' : viewOnlyNote()}
${problems(shown, labels)}
<p>Choose a style, then adjust the colour, fonts and corners. Text and buttons always stay easy to read.</p>
${may ? html`<form method="post" action="/app/sites/${site.id}/theme" novalidate>${hidden(reply.formToken(), versionOf(viewOfSite(app, site)))}` : html`<div>`}
<section class="card" aria-labelledby="theme-h"><h2 id="theme-h">Look of your site</h2>
${choice(
  shown,
  PRESET,
  PRESETS.map((p) => [p.id, `${p.name}: ${p.description}`] as const),
)}
${field(shown, BRAND)}
${choice(
  shown,
  FONTS,
  FONT_PAIRS.map((f) => [f.id, f.name] as const),
)}
${choice(
  shown,
  CORNER,
  CORNERS.map((c) => [c, CORNER_WORDS[c]] as const),
)}
${adjusted}
</section>
${
  may
    ? html`<p><button type="submit" name="_do" value="save">Save the look</button> <button type="submit" name="_do" value="preview" class="secondary">Show the preview</button></p>
</form>`
    : html`</div>`
}
<section class="card" aria-labelledby="preview-h"><h2 id="preview-h">Preview</h2>
${valid ? html`<p class="hint">Your home page with this look, as it will be published. <a href="${previewAddress(site, shown.values)}">Open the preview on its own</a>.</p><iframe title="Preview of your site with this look" src="${previewAddress(site, shown.values)}" width="100%" height="600" loading="lazy"></iframe>` : html`<p>Correct the problems above to see the preview.</p>`}
</section>`
  return reply.page(`Look of ${site.name}`, 'sites', body, notice)
}

/**
 * The look of a site: preset, brand colour, fonts and corners, with a preview of the draft in that
 * look (sandboxed, src/sites/draft-preview.ts). Saved through the same domain function and body
 * schema as PATCH /v1/sites/{id} `theme`; the form carries the site's ETag as its version.
 */
export default async function themeScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/sites/:id/theme',
    { config: { operation: 'dashboard.sites.theme' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      return render(app, reply, site, formState(valuesOf(themeView(site.settings))), noticeOf(request))
    },
  )

  routes.post(
    '/sites/:id/theme',
    {
      config: { operation: 'dashboard.sites.update_theme' },
      schema: { hide: true, params: SiteParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const accountId = request.person.accountId
      const site = await ownSite(app, accountId, request.params.id)
      const saved = themeView(site.settings)
      const typed = Object.fromEntries(['preset', 'brand_color', 'font_pair', 'corners'].map((n) => [n, textOf(request.body, n).trim()]))
      const values = themeFrom(typed, saved)
      const wrong = fieldErrors(issuesOf(ThemeInput, values), specs)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        return render(app, reply, site, { values, errors: wrong })
      }
      if (textOf(request.body, '_do') === 'preview') return render(app, reply, site, formState(values))
      const version = textOf(request.body, '_version')
      try {
        await auditedChange(request, async (trx) => {
          const changed = await updateAccountSite(trx, accountId, site.id, { theme: values as ThemeInput }, (current) => {
            if (version && versionOf(viewOfSite(app, current)) !== version)
              throw new errors.preconditionFailed('The site has changed since the form was opened')
          })
          if (!changed) throw new errors.notFound('There is no such site in your account')
        })
      } catch (error) {
        const refusal = refusalOf(error, {}, 'site')
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        const current = await ownSite(app, accountId, site.id)
        return render(app, reply, current, refusedState(values, refusal, valuesOf(themeView(current.settings))))
      }
      return reply.redirect(`/app/sites/${site.id}/theme?done=theme-saved`, 303)
    },
  )
}
