import type { Locale } from '../../domain/locales.ts'
import { safeHref } from '../../domain/sites/safe-href.ts'
import { html, raw, type SafeHtml } from '../../infra/html.ts'
import { LABELS } from './labels.ts'
import { markdownToHtml } from './markdown.ts'
import { localHref, relativePath } from './paths.ts'
import type { Block, FormConsent, Link } from './types.ts'
import { pictureHtml, SIZES } from './picture.ts'
import { addressLine, dayLines, exceptionText, mapLink, menuSections, priceText } from '../../domain/sites/hours.ts'
import { CONTACT_HEADING, EMAIL_LABEL, HOURS_HEADING, MAP_LINK, MENU_HEADING, PHONE_LABEL } from '../../domain/sites/page-markdown.ts'

/** What a block needs to know about the page it sits on. */
export interface BlockContext {
  /** The page's path in the release. */
  from: string
  locale: Locale
  /** True for the block that carries the page's h1 (a leading hero). */
  isH1: boolean
  /** Position on the page, for ids that must be unique. */
  index: number
  /** True for the block holding the page's first image, which is loaded at once; the others lazily. */
  firstImage: boolean
  formToken: string
  consent: FormConsent | undefined
  /** The page's path inside its locale, handed back by the contact form. */
  pagePath: string
}

/** The paragraphs of plain text: blank lines separate them, single newlines become <br>. */
function paragraphs(text: string): SafeHtml {
  const lines = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
  return html`${lines.map((p) => html`<p>${p.split('\n').map((line, i) => html`${i ? html`<br>` : ''}${line}`)}</p>`)}`
}

/** A link whose target failed the check is shown as plain text: the words stay, the script does not. */
function anchor(from: string, link: Link, className: string): SafeHtml {
  const href = safeHref(link.href)
  return href === undefined
    ? html`<span class="${className}">${link.label}</span>`
    : html`<a class="${className}" href="${localHref(from, href)}">${link.label}</a>`
}

function heading(level: number, text: string): SafeHtml {
  return html`<h${level}>${text}</h${level}>`
}

/** The contact form's fields a visitor fills in. */
export type ContactField = 'name' | 'email' | 'message' | 'consent'

/** What a visitor sent and what was wrong with it, when their form is shown to them again. */
export interface FormFill {
  values: { name?: string; email?: string; message?: string; consent?: boolean }
  errors: Partial<Record<ContactField, string>>
}

/**
 * The contact form: empty on a page, or, given a fill, with what the visitor typed and each
 * problem said above its field (and tied to it for screen readers).
 */
export function contactForm(content: { heading?: string; submit_label?: string }, ctx: BlockContext, fill?: FormFill): SafeHtml {
  const l = LABELS[ctx.locale]
  const id = (name: string) => `cf${ctx.index}-${name}`
  const consent = ctx.consent
  const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`
  const privacy = consent ? safeHref(consent.privacy.url) : undefined
  const privacyLink = consent && privacy !== undefined ? html` <a href="${localHref(ctx.from, privacy)}">${consent.privacy.label}</a>` : ''
  const error = (field: ContactField) => {
    const text = fill?.errors[field]
    return text === undefined ? '' : html`<span class="field-error" id="${id(field)}-error">${text}</span>`
  }
  const invalid = (field: ContactField) =>
    fill?.errors[field] === undefined ? '' : html` aria-invalid="true" aria-describedby="${id(field)}-error"`
  const value = (field: 'name' | 'email') => (fill?.values[field] ? html` value="${fill.values[field]}"` : '')
  const checked = fill?.values.consent ? html` checked` : ''
  // The honeypot (the hidden "website" field): hidden from people and screen readers, so only a script fills it in.
  return html`<section class="contact" id="contact">${heading(2, content.heading ?? l.contact)}<form method="post" action="${relativePath(ctx.from, '/_wps/forms/contact')}">${[
    hidden('token', ctx.formToken),
    hidden('locale', ctx.locale),
    hidden('page', ctx.pagePath),
    consent ? [hidden('consent_version', consent.version), hidden('consent_digest', consent.digest)] : '',
  ]}<p><label for="${id('name')}">${l.name}</label>${error('name')}<input id="${id('name')}" name="name" autocomplete="name" maxlength="200"${value('name')}${invalid('name')}></p>\
<p><label for="${id('email')}">${l.email}</label>${error('email')}<input id="${id('email')}" name="email" type="email" autocomplete="email" required maxlength="254"${value('email')}${invalid('email')}></p>\
<p><label for="${id('message')}">${l.message}</label>${error('message')}<textarea id="${id('message')}" name="message" rows="5" maxlength="5000"${invalid('message')}>${fill?.values.message ?? ''}</textarea></p>\
${
  consent
    ? html`${error('consent')}<p class="consent"><input id="${id('consent')}" name="consent" type="checkbox" value="yes" required${checked}${invalid('consent')}><span><label for="${id('consent')}">${consent.text}</label>${privacyLink}</span></p>`
    : ''
}\
<div style="display:none"><label for="${id('website')}">Website</label><input id="${id('website')}" name="website" tabindex="-1" autocomplete="off"></div>\
<p><button type="submit">${content.submit_label ?? l.send}</button></p></form></section>`
}

/** One block as HTML. Every string from the block is escaped by the template or checked on its way in. */
export function blockHtml(block: Block, ctx: BlockContext): SafeHtml | '' {
  const { from } = ctx
  switch (block.type) {
    case 'hero': {
      const c = block.content
      return html`<section class="hero">${heading(ctx.isH1 ? 1 : 2, c.heading)}${c.subheading ? html`<p class="lead">${c.subheading}</p>` : ''}${c.cta ? html`<p>${anchor(from, c.cta, 'button')}</p>` : ''}${c.image ? pictureHtml(from, c.image, ctx.firstImage) : ''}</section>`
    }
    case 'text':
      // Markdown is rendered by the sanitizing renderer, which escapes what it does not allow.
      return html`<section class="text">${raw(markdownToHtml(block.content.markdown, from))}</section>`
    case 'image': {
      const c = block.content
      const img = pictureHtml(from, c, ctx.firstImage)
      if (!img && !c.caption) return ''
      return html`<figure>${img}${c.caption ? html`<figcaption>${c.caption}</figcaption>` : ''}</figure>`
    }
    case 'gallery': {
      const c = block.content
      const items = c.images.map((picture, i) => {
        const img = pictureHtml(from, picture, ctx.firstImage && i === 0, SIZES.cell)
        if (!img && !picture.caption) return ''
        return html`<li><figure>${img}${picture.caption ? html`<figcaption>${picture.caption}</figcaption>` : ''}</figure></li>`
      })
      return html`<section class="gallery">${c.heading ? heading(2, c.heading) : ''}<ul>${items}</ul></section>`
    }
    case 'features': {
      const c = block.content
      const level = c.heading ? 3 : 2
      return html`<section class="features">${c.heading ? heading(2, c.heading) : ''}<ul class="grid">${c.items.map((i) => html`<li>${heading(level, i.title)}${paragraphs(i.text)}</li>`)}</ul></section>`
    }
    case 'faq': {
      const c = block.content
      const level = c.heading ? 3 : 2
      return html`<section class="faq">${c.heading ? heading(2, c.heading) : ''}${c.items.map((i) => html`${heading(level, i.question)}${paragraphs(i.answer)}`)}</section>`
    }
    case 'cta': {
      const c = block.content
      return html`<section class="cta">${heading(2, c.heading)}${c.text ? paragraphs(c.text) : ''}<p>${anchor(from, { label: c.label, href: c.href }, 'button')}</p></section>`
    }
    case 'contact_form':
      return contactForm(block.content, ctx)
    case 'testimonial': {
      const c = block.content
      return html`<figure class="quote"><blockquote>${paragraphs(c.quote)}</blockquote><figcaption>${c.author}${c.role ? `, ${c.role}` : ''}</figcaption></figure>`
    }
    case 'opening_hours': {
      const c = block.content
      const rows = dayLines(c, ctx.locale).map((d) => html`<tr><th scope="row">${d.day}</th><td>${d.text}</td></tr>`)
      const exceptions = (c.exceptions ?? []).map((e) => exceptionText(e, ctx.locale))
      return html`<section class="hours">${heading(2, c.heading ?? HOURS_HEADING[ctx.locale])}<table>${rows}</table>${
        exceptions.length ? html`<ul>${exceptions.map((e) => html`<li>${e.date}: ${e.text}</li>`)}</ul>` : ''
      }</section>`
    }
    case 'menu': {
      const c = block.content
      const currency = c.currency ?? 'EUR'
      const sections = menuSections(c).map(
        (section) =>
          html`${section.title ? heading(3, section.title) : ''}<ul>${section.items.map(
            (i) =>
              html`<li><span>${i.name}</span>${i.price === undefined ? '' : html`<span class="price">${priceText(i.price, currency, ctx.locale)}</span>`}${i.description ? html`<p>${i.description}</p>` : ''}</li>`,
          )}</ul>`,
      )
      return html`<section class="menu">${heading(2, c.heading ?? MENU_HEADING[ctx.locale])}${sections}</section>`
    }
    case 'contact_details': {
      const c = block.content
      const l = ctx.locale
      return html`<section class="contact-details">${heading(2, c.heading ?? CONTACT_HEADING[l])}<address>${c.address ? html`<p>${addressLine(c.address)}<br><a href="${mapLink(c.address)}">${MAP_LINK[l]}</a></p>` : ''}${c.phone ? html`<p>${PHONE_LABEL[l]}: <a href="tel:${c.phone.replace(/[^+0-9]/g, '')}">${c.phone}</a></p>` : ''}${c.email ? html`<p>${EMAIL_LABEL[l]}: <a href="mailto:${c.email}">${c.email}</a></p>` : ''}</address></section>`
    }
  }
}
