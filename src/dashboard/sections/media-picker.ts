import { listMedia, type Media } from '../../domain/media/media.ts'
import { mediaPath, widthVariants } from '../../domain/media/views.ts'
import type { Db } from '../../infra/db.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
import { errorLine, fieldId, type FieldSpec, type FormState } from './editor/form.ts'

/**
 * Photos of the media library in the dashboard: a thumbnail, and the picker the image, hero and
 * gallery block forms show, radio buttons with each photo's thumbnail (no script needed; on a
 * phone the photos wrap in rows).
 */

/** An item's thumbnail: its smallest variant in its own family, sized so the page does not shift. */
export function thumbnail(media: Media, width = 160): SafeHtml {
  const widths = widthVariants(media)
  const family = widths.filter((v) => v.format !== 'webp')
  const smallest = (family.length ? family : widths).reduce((a, b) => (b.width < a.width ? b : a))
  const height = Math.max(1, Math.round((media.height / media.width) * width))
  return html`<img class="thumb" src="${mediaPath(smallest.key)}" width="${width}" height="${height}" alt="" loading="lazy" decoding="async">`
}

/** The photos a picker offers: the library's newest hundred. */
export async function pickableMedia(db: Db, accountId: string): Promise<Media[]> {
  return (await listMedia(db, accountId, { limit: 100, offset: 0 })).items
}

/** A choice of one photo of the library (optional fields offer “No photo”), with a way to upload more. */
export function mediaPicker(t: Translator, state: FormState, spec: FieldSpec, library: readonly Media[]): SafeHtml {
  const id = fieldId(spec.name)
  const error = state.errors[spec.name]
  const current = state.values[spec.name] ?? ''
  const described = [spec.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  const option = (value: string, label: SafeHtml, n: number) =>
    html`<label class="pick" for="${id}-${n}"><input type="radio" id="${id}-${n}" name="${spec.name}" value="${value}"${value === current ? html` checked` : ''}${state.readOnly ? html` disabled` : ''}> ${label}</label>`
  const options = [
    ...(spec.optional || spec.inOptionalGroup ? [option('', html`${t.t('media.picker.none')}`, 0)] : []),
    ...library.map((media, i) =>
      option(
        media.id,
        html`${thumbnail(media, 96)}<span>${media.filename}${media.alt ? html`<br><span class="muted">${media.alt}</span>` : ''}</span>`,
        i + 1,
      ),
    ),
  ]
  const unknown = current && !library.some((m) => m.id === current) ? html`<p class="muted">${t.t('media.picker.gone')}</p>` : ''
  return html`<fieldset class="field picker${error ? ' invalid' : ''}" id="${id}"${described ? html` aria-describedby="${described}"` : ''}><legend>${spec.label}${spec.optional && !spec.inOptionalGroup ? html` <span class="optional">${t.t('editor.form.optional')}</span>` : ''}</legend>
${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}${error ? errorLine(id, error, t) : ''}${unknown}
${library.length ? html`<div class="picks">${options}</div>` : html`<p>${t.t('media.picker.empty')}</p>`}
<p>${t.rich('media.picker.upload', {}, { link: (words) => html`<a href="/app/media">${words}</a>` })}</p></fieldset>`
}
