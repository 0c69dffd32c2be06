import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { updateAccountSite, type SiteRecord } from '../../../domain/sites/sites.ts'
import { CORNERS, FONT_PAIRS, PRESETS, resolveThemeView, themeView, ThemeInput, type ThemeView } from '../../../domain/sites/themes.ts'
import { errors } from '../../../errors.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import type { MessageKey, Translator } from '../../../domain/i18n/translator.ts'
import { mayChange } from '../../permissions.ts'
import { crumbs, ownSite, SiteParams, viewOfSite, viewOnly } from './context.ts'
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

/** The form's fields in the page's language. */
function fieldsOf(t: Translator) {
  const BRAND: FieldSpec = {
    name: 'brand_color',
    label: t.t('editor.theme.brand'),
    hint: t.t('editor.theme.brand.hint'),
    maxLength: 7,
    format: t.t('editor.theme.brand.format'),
  }
  const PRESET: FieldSpec = { name: 'preset', label: t.t('editor.theme.preset') }
  const FONTS: FieldSpec = { name: 'font_pair', label: t.t('editor.theme.fonts') }
  const CORNER: FieldSpec = { name: 'corners', label: t.t('editor.theme.corners') }
  return { BRAND, PRESET, FONTS, CORNER, specs: specsOf([PRESET, BRAND, FONTS, CORNER]) }
}

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
  const { t } = reply.request
  const { BRAND, PRESET, FONTS, CORNER, specs } = fieldsOf(t)
  const may = mayChange(reply.request.person)
  const shown = may ? state : { ...state, readOnly: true }
  const valid = issuesOf(ThemeInput, shown.values).length === 0
  const theme = valid ? resolveThemeView(shown.values as ThemeView) : undefined
  const adjusted =
    theme?.brand_adjusted === true
      ? html`<p class="notice" id="contrast-note">${t.t('editor.theme.adjusted', { button: theme.colors.button, link: theme.colors.link })}</p>`
      : ''
  const body = html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('editor.site.look')]])}
${may ? '' : viewOnly(t)}
${problems(shown, labelsOf(specs), t)}
<p>${t.t('editor.theme.intro')}</p>
${may ? html`<form method="post" action="/app/sites/${site.id}/theme" novalidate>${hidden(reply.formToken(), versionOf(viewOfSite(app, site)))}` : html`<div>`}
<section class="card" aria-labelledby="theme-h"><h2 id="theme-h">${t.t('editor.theme.heading')}</h2>
${choice(
  shown,
  PRESET,
  PRESETS.map((p) => [p.id, t.t(`editor.theme.preset.${p.id}` as MessageKey)] as const),
  t,
)}
${field(shown, BRAND, t)}
${choice(
  shown,
  FONTS,
  FONT_PAIRS.map((f) => [f.id, t.t(`editor.theme.font.${f.id}` as MessageKey)] as const),
  t,
)}
${choice(
  shown,
  CORNER,
  CORNERS.map((c) => [c, t.t(`editor.theme.corners.${c}`)] as const),
  t,
)}
${adjusted}
</section>
${
  may
    ? html`<p><button type="submit" name="_do" value="save">${t.t('editor.theme.save')}</button> <button type="submit" name="_do" value="preview" class="secondary">${t.t('editor.theme.showPreview')}</button></p>
</form>`
    : html`</div>`
}
<section class="card" aria-labelledby="preview-h"><h2 id="preview-h">${t.t('editor.theme.preview')}</h2>
${valid ? html`<p class="hint">${t.rich('editor.theme.preview.hint', {}, { link: (words) => html`<a href="${previewAddress(site, shown.values)}">${words}</a>` })}</p><iframe title="${t.t('editor.theme.preview.frame')}" src="${previewAddress(site, shown.values)}" width="100%" height="600" loading="lazy"></iframe>` : html`<p>${t.t('editor.theme.preview.fixFirst')}</p>`}
</section>`
  return reply.page(t.t('editor.theme.title', { name: site.name }), 'sites', body, notice)
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
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
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
      const { t } = request
      const wrong = fieldErrors(issuesOf(ThemeInput, values), fieldsOf(t).specs, undefined, t)
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
        const refusal = refusalOf(error, {}, 'site', t)
        if (!refusal) throw error
        await refused(request, reply, refusal.status)
        const current = await ownSite(app, accountId, site.id)
        return render(app, reply, current, refusedState(values, refusal, valuesOf(themeView(current.settings))))
      }
      return reply.redirect(`/app/sites/${site.id}/theme?done=theme-saved`, 303)
    },
  )
}
