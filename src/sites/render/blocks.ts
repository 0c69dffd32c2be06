import type { Locale } from '../../domain/locales.ts'
import { safeHref, safeImageSrc } from '../../domain/sites/safe-href.ts'
import { esc } from './escape.ts'
import { LABELS } from './labels.ts'
import { markdownToHtml } from './markdown.ts'
import { localHref, relativePath } from './paths.ts'
import type { Block, FormConsent, Link, Picture } from './types.ts'
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
  formToken: string
  consent: FormConsent | undefined
  /** The page's path inside its locale, handed back by the contact form. */
  pagePath: string
}

/** The paragraphs of plain text: blank lines separate them, single newlines become <br>. */
function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('')
}

/** A link whose target failed the check is shown as plain text: the words stay, the script does not. */
function anchor(from: string, link: Link, className: string): string {
  const href = safeHref(link.href)
  return href === undefined
    ? `<span class="${className}">${esc(link.label)}</span>`
    : `<a class="${className}" href="${esc(localHref(from, href))}">${esc(link.label)}</a>`
}

function image(from: string, picture: Picture, eager: boolean): string {
  const src = safeImageSrc(picture.src)
  if (src === undefined) return ''
  const loading = eager ? 'fetchpriority="high"' : 'loading="lazy"'
  return `<img src="${esc(localHref(from, src))}" alt="${esc(picture.alt)}" ${loading} decoding="async">`
}

function heading(level: number, text: string): string {
  return `<h${level}>${esc(text)}</h${level}>`
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
export function contactForm(content: { heading?: string; submit_label?: string }, ctx: BlockContext, fill?: FormFill): string {
  const l = LABELS[ctx.locale]
  const id = (name: string) => `cf${ctx.index}-${name}`
  const consent = ctx.consent
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${esc(value)}">`
  const privacy = consent ? safeHref(consent.privacy.url) : undefined
  const privacyLink =
    consent && privacy !== undefined ? ` <a href="${esc(localHref(ctx.from, privacy))}">${esc(consent.privacy.label)}</a>` : ''
  const error = (field: ContactField) => {
    const text = fill?.errors[field]
    return text === undefined ? '' : `<span class="field-error" id="${id(field)}-error">${esc(text)}</span>`
  }
  const invalid = (field: ContactField) =>
    fill?.errors[field] === undefined ? '' : ` aria-invalid="true" aria-describedby="${id(field)}-error"`
  const value = (field: 'name' | 'email') => (fill?.values[field] ? ` value="${esc(fill.values[field])}"` : '')
  const checked = fill?.values.consent ? ' checked' : ''
  return [
    `<section class="contact" id="contact">`,
    heading(2, content.heading ?? l.contact),
    `<form method="post" action="${esc(relativePath(ctx.from, '/_wps/forms/contact'))}">`,
    hidden('token', ctx.formToken),
    hidden('locale', ctx.locale),
    hidden('page', ctx.pagePath),
    consent ? hidden('consent_version', consent.version) + hidden('consent_digest', consent.digest) : '',
    `<p><label for="${id('name')}">${esc(l.name)}</label>${error('name')}<input id="${id('name')}" name="name" autocomplete="name" maxlength="200"${value('name')}${invalid('name')}></p>`,
    `<p><label for="${id('email')}">${esc(l.email)}</label>${error('email')}<input id="${id('email')}" name="email" type="email" autocomplete="email" required maxlength="254"${value('email')}${invalid('email')}></p>`,
    `<p><label for="${id('message')}">${esc(l.message)}</label>${error('message')}<textarea id="${id('message')}" name="message" rows="5" maxlength="5000"${invalid('message')}>${esc(fill?.values.message ?? '')}</textarea></p>`,
    consent
      ? `${error('consent')}<p class="consent"><input id="${id('consent')}" name="consent" type="checkbox" value="yes" required${checked}${invalid('consent')}><span><label for="${id('consent')}">${esc(consent.text)}</label>${privacyLink}</span></p>`
      : '',
    // The honeypot: hidden from people (and from screen readers), so only a script fills it in.
    `<div style="display:none"><label for="${id('website')}">Website</label><input id="${id('website')}" name="website" tabindex="-1" autocomplete="off"></div>`,
    `<p><button type="submit">${esc(content.submit_label ?? l.send)}</button></p>`,
    `</form></section>`,
  ].join('')
}

/** One block as HTML. Every string from the block is escaped or checked on its way in. */
export function blockHtml(block: Block, ctx: BlockContext): string {
  const { from } = ctx
  switch (block.type) {
    case 'hero': {
      const c = block.content
      return `<section class="hero">${heading(ctx.isH1 ? 1 : 2, c.heading)}${c.subheading ? `<p class="lead">${esc(c.subheading)}</p>` : ''}${c.cta ? `<p>${anchor(from, c.cta, 'button')}</p>` : ''}${c.image ? image(from, c.image, ctx.isH1) : ''}</section>`
    }
    case 'text':
      return `<section class="text">${markdownToHtml(block.content.markdown, from)}</section>`
    case 'image': {
      const c = block.content
      const img = image(from, c, false)
      if (!img && !c.caption) return ''
      return `<figure>${img}${c.caption ? `<figcaption>${esc(c.caption)}</figcaption>` : ''}</figure>`
    }
    case 'features': {
      const c = block.content
      const level = c.heading ? 3 : 2
      return `<section class="features">${c.heading ? heading(2, c.heading) : ''}<ul class="grid">${c.items.map((i) => `<li>${heading(level, i.title)}${paragraphs(i.text)}</li>`).join('')}</ul></section>`
    }
    case 'faq': {
      const c = block.content
      const level = c.heading ? 3 : 2
      return `<section class="faq">${c.heading ? heading(2, c.heading) : ''}${c.items.map((i) => `${heading(level, i.question)}${paragraphs(i.answer)}`).join('')}</section>`
    }
    case 'cta': {
      const c = block.content
      return `<section class="cta">${heading(2, c.heading)}${c.text ? paragraphs(c.text) : ''}<p>${anchor(from, { label: c.label, href: c.href }, 'button')}</p></section>`
    }
    case 'contact_form':
      return contactForm(block.content, ctx)
    case 'testimonial': {
      const c = block.content
      const who = c.role ? `${esc(c.author)}, ${esc(c.role)}` : esc(c.author)
      return `<figure class="quote"><blockquote>${paragraphs(c.quote)}</blockquote><figcaption>${who}</figcaption></figure>`
    }
    case 'opening_hours': {
      const c = block.content
      const rows = dayLines(c, ctx.locale).map((d) => `<tr><th scope="row">${esc(d.day)}</th><td>${esc(d.text)}</td></tr>`)
      const exceptions = (c.exceptions ?? []).map((e) => exceptionText(e, ctx.locale))
      return `<section class="hours">${heading(2, c.heading ?? HOURS_HEADING[ctx.locale])}<table>${rows.join('')}</table>${
        exceptions.length ? `<ul>${exceptions.map((e) => `<li>${esc(e.date)}: ${esc(e.text)}</li>`).join('')}</ul>` : ''
      }</section>`
    }
    case 'menu': {
      const c = block.content
      const currency = c.currency ?? 'EUR'
      const sections = menuSections(c).map(
        (section) =>
          `${section.title ? heading(3, section.title) : ''}<ul>${section.items
            .map(
              (i) =>
                `<li><span>${esc(i.name)}</span>${i.price === undefined ? '' : `<span class="price">${esc(priceText(i.price, currency, ctx.locale))}</span>`}${i.description ? `<p>${esc(i.description)}</p>` : ''}</li>`,
            )
            .join('')}</ul>`,
      )
      return `<section class="menu">${heading(2, c.heading ?? MENU_HEADING[ctx.locale])}${sections.join('')}</section>`
    }
    case 'contact_details': {
      const c = block.content
      const l = ctx.locale
      const lines = [
        c.address ? `<p>${esc(addressLine(c.address))}<br><a href="${esc(mapLink(c.address))}">${esc(MAP_LINK[l])}</a></p>` : '',
        c.phone ? `<p>${esc(PHONE_LABEL[l])}: <a href="tel:${esc(c.phone.replace(/[^+0-9]/g, ''))}">${esc(c.phone)}</a></p>` : '',
        c.email ? `<p>${esc(EMAIL_LABEL[l])}: <a href="mailto:${esc(c.email)}">${esc(c.email)}</a></p>` : '',
      ]
      return `<section class="contact-details">${heading(2, c.heading ?? CONTACT_HEADING[l])}<address>${lines.join('')}</address></section>`
    }
  }
}
