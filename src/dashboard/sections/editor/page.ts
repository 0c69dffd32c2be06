import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { BLOCK_TYPES, type BlockType } from '../../../domain/sites/block-content.ts'
import { blockView, listPageBlocks, updateBlock } from '../../../domain/sites/blocks.ts'
import { PagePatch } from '../../../domain/sites/content-inputs.ts'
import { deletePage, getAccountPage, updatePage, type Page } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { pageView } from '../../../domain/sites/views.ts'
import { errors } from '../../../errors.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm } from '../../layout.ts'
import { allowPreviewImages, blockForms } from './block-forms.ts'
import { addressesOf, BlockParams, crumbs, localeName, ownBlock, ownPage, pageAddress, PageParams, viewOnly } from './context.ts'
import {
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
  sameVersion,
  textOf,
  versionOf,
  type FormBody,
  type FormState,
} from './form.ts'
import { goneMeanwhile, backOf } from './gone.ts'
import { noticeOf } from './notices.ts'
import type { Translator } from '../../../domain/i18n/translator.ts'
import { mayChange } from '../../permissions.ts'
import { pageConflicts, pageFields, pageInput, pageSpecs, pageValues, pageValuesFrom } from './page-fields.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })), _version: Type.Optional(Type.String({ maxLength: 100 })) }

interface View {
  site: SiteRecord
  page: Page
  state: FormState
  /** The version the details form carries: the page's as the person first saw it. */
  version?: string
  notice?: string
  /** A refused action on the blocks (a stale move). */
  problem?: SafeHtml
}

const srOnly = (words: SafeHtml) => html`<span class="sr-only">${words}</span>`

function moveForm(t: Translator, blockId: string, csrf: string, version: string, direction: 'up' | 'down', name: string): SafeHtml {
  return html`<form method="post" action="/app/blocks/${blockId}/move" class="inline">${hidden(csrf, version)}<input type="hidden" name="direction" value="${direction}"><button type="submit" class="secondary">${t.rich('editor.page.move', { direction, name }, { hidden: srOnly })}</button></form>`
}

async function render(app: FastifyInstance, reply: FastifyReply, view: View) {
  const { site, page, state } = view
  const { items: blocks } = await listPageBlocks(app.db, page.id, { limit: 500, offset: 0 })
  if (blocks.some((block) => block.type === 'text')) allowPreviewImages(reply)
  const csrf = reply.formToken()
  const previewOfPage = `${addressesOf(app, site).preview}${pageAddress(site, page).slice(1)}`
  const may = mayChange(reply.request.person)
  const { t } = reply.request
  const forms = blockForms(t)
  const body = html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [page.title]])}
${may ? '' : viewOnly(t, 'page')}
${view.problem ? html`<div class="error problems" role="alert"><h2>${t.t('editor.page.nothingChanged')}</h2><p>${view.problem}</p></div>` : ''}
<p class="actions"><a href="${previewOfPage}">${t.rich('editor.page.preview', {}, { hidden: srOnly })}</a> <span class="muted">${site.locales.length > 1 ? `${localeName(t, page.locale)} · ` : ''}<code>${pageAddress(site, page)}</code></span> <a href="/app/pages/${page.id}/history">${t.rich('editor.page.history', {}, { hidden: srOnly })}</a></p>
<section aria-labelledby="blocks-h"><h2 id="blocks-h">${t.t('editor.page.blocks')}</h2>
${blocks.length === 0 ? html`<p>${t.t('editor.page.noBlocks', { may: may ? 'yes' : 'no' })}</p>` : ''}
<ol class="blocks">${blocks.map((block, i) => {
    const form = forms[block.type as BlockType]
    const version = versionOf(blockView(block))
    // German writes its nouns with a capital; English and French name the kind in lower case mid-sentence.
    const name = t.t('editor.page.blockName', { kind: t.lang === 'de' ? form.label : form.label.toLowerCase(), n: i + 1 })
    return html`<li id="block-${block.id}"><p class="kind">${i + 1}. ${form.label}</p>${form.summary(blockView(block).content as never)}
${
  may
    ? html`<div class="actions"><a href="/app/blocks/${block.id}">${t.rich('editor.page.edit', { name }, { hidden: srOnly })}</a>
${i > 0 ? moveForm(t, block.id, csrf, version, 'up', name) : ''}
${i < blocks.length - 1 ? moveForm(t, block.id, csrf, version, 'down', name) : ''}
<a href="/app/blocks/${block.id}/delete">${t.rich('editor.page.delete', { name }, { hidden: srOnly })}</a></div>`
    : ''
}</li>`
  })}</ol>
${
  may
    ? html`<h3 id="add-h">${t.t('editor.page.addBlock')}</h3>
<ul aria-labelledby="add-h">${BLOCK_TYPES.map((type) => html`<li><a href="/app/pages/${page.id}/blocks/new?type=${type}">${forms[type].label}</a>: ${forms[type].description}</li>`)}</ul>`
    : ''
}
</section>
<section aria-labelledby="details-h"><h2 id="details-h">${t.t('editor.page.details')}</h2>
${problems(state, labelsOf(pageSpecs(t)), t)}
${
  may
    ? html`<form method="post" action="/app/pages/${page.id}" class="card" novalidate>${hidden(csrf, view.version ?? versionOf(pageView(page)))}<input type="hidden" name="_site" value="${site.id}">
${pageFields(t, state, site)}
<button type="submit">${t.t('editor.page.saveDetails')}</button>
</form>`
    : html`<div class="card">${pageFields(t, { ...state, readOnly: true }, site)}</div>`
}
</section>
${
  may
    ? html`<section aria-labelledby="publish-h"><h2 id="publish-h">${t.t('editor.publish')}</h2>
<p>${t.t('editor.page.publishNote')}</p>
${actionForm(`/app/sites/${site.id}/rebuild`, csrf, t.t('editor.publishNow'), { inline: false })}
<p><a href="/app/pages/${page.id}/delete">${t.t('editor.page.deleteThis')}</a></p>
</section>`
    : ''
}`
  return reply.page(page.title, 'sites', body, view.notice ? { notice: view.notice } : {})
}

/** A page's details saved after the page was deleted: what was typed, and the way back to its site. */
async function pageGone(app: FastifyInstance, request: FastifyRequest<{ Params: { id: string }; Body: FormBody }>, reply: FastifyReply) {
  const values = pageValuesFrom(request.body)
  const { t } = request
  const labels = labelsOf(pageSpecs(t))
  return goneMeanwhile(request, reply, {
    title: t.t('editor.page.gone.title'),
    what: t.t('editor.page.gone.what'),
    typed: Object.entries(labels)
      .filter(([name]) => name !== 'locale')
      .map(([name, label]) => [label, values[name] ?? ''] as const),
    back: await backOf(app.db, request),
    copyInto: t.t('editor.page.gone.into'),
  })
}

/** Saves a page's details through updatePage (as PATCH /v1/pages/{id}), or shows the form again with what was refused. */
async function savePageDetails(
  app: FastifyInstance,
  request: FastifyRequest<{ Params: { id: string }; Body: FormBody }>,
  reply: FastifyReply,
) {
  const accountId = request.person.accountId
  if (!(await getAccountPage(app.db, accountId, request.params.id))) return pageGone(app, request, reply)
  const { site, page } = await ownPage(app, accountId, request.params.id)
  const values = pageValuesFrom(request.body)
  const input = pageInput(values)
  const version = textOf(request.body, '_version') || undefined
  const { t } = request
  const wrong = fieldErrors(issuesOf(PagePatch, input), pageSpecs(t), undefined, t)
  if (Object.keys(wrong).length) {
    await refused(request, reply, 400)
    return render(app, reply, { site, page, state: { values, errors: wrong }, ...(version ? { version } : {}) })
  }
  try {
    await auditedChange(request, async (trx) => {
      if (!(await updatePage(trx, accountId, page.id, input, version ? sameVersion(version, pageView) : undefined)))
        throw new errors.notFound('There is no such page in your account')
    })
  } catch (error) {
    if (error instanceof errors.notFound) return pageGone(app, request, reply)
    const refusal = refusalOf(error, pageConflicts(t), 'page', t)
    if (!refusal) throw error
    await refused(request, reply, refusal.status)
    const now = await ownPage(app, accountId, page.id)
    return render(app, reply, {
      ...now,
      state: refusedState(values, refusal, refusal.stale ? pageValues(now.page) : undefined),
      ...(!refusal.stale && version ? { version } : {}),
    })
  }
  return reply.redirect(`/app/pages/${page.id}?done=page-saved`, 303)
}

/**
 * One page in the editor: its details (title, address, language, description), its blocks in
 * order with edit, move up and down and delete, the kinds of block to add, its preview, and
 * publishing. Changes go through updatePage, updateBlock and deletePage, as on /v1.
 */
export default async function pageScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/pages/:id',
    { config: { operation: 'dashboard.pages.get' }, schema: { hide: true, params: PageParams } },
    async (request, reply) => {
      const { site, page } = await ownPage(app, request.person.accountId, request.params.id, request.t)
      return render(app, reply, { site, page, state: formState(pageValues(page)), ...noticeOf(request) })
    },
  )

  routes.post(
    '/pages/:id',
    {
      config: { operation: 'dashboard.pages.update' },
      schema: { hide: true, params: PageParams, body: FormBodySchema },
    },
    async (request, reply) => savePageDetails(app, request, reply),
  )

  routes.post(
    '/blocks/:id/move',
    {
      config: { operation: 'dashboard.blocks.move' },
      schema: {
        hide: true,
        params: BlockParams,
        body: Type.Object({ ...Form, direction: Type.Union([Type.Literal('up'), Type.Literal('down')]) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const accountId = request.person.accountId
      const { block, page } = await ownBlock(app, accountId, request.params.id)
      const version = request.body._version
      const position = block.position + (request.body.direction === 'up' ? -1 : 1)
      try {
        await auditedChange(request, async (trx) => {
          if (!(await updateBlock(trx, accountId, block.id, { position }, version ? sameVersion(version, blockView) : undefined)))
            throw new errors.notFound('There is no such block in your account')
        })
      } catch (error) {
        const refusal = refusalOf(error, {}, 'block', request.t)
        if (!refusal?.stale) throw error
        await refused(request, reply, refusal.status)
        const now = await ownPage(app, accountId, page.id)
        return render(app, reply, {
          ...now,
          state: formState(pageValues(now.page)),
          problem: html`${request.t.t('editor.page.movedMeanwhile')}`,
        })
      }
      return reply.redirect(`/app/pages/${page.id}?done=block-moved#block-${block.id}`, 303)
    },
  )

  routes.get(
    '/pages/:id/delete',
    { config: { operation: 'dashboard.pages.confirmDelete' }, schema: { hide: true, params: PageParams } },
    async (request, reply) => {
      const { site, page } = await ownPage(app, request.person.accountId, request.params.id, request.t)
      const { total } = await listPageBlocks(app.db, page.id, { limit: 1, offset: 0 })
      // A viewer deletes nothing: the page as it is, read-only.
      if (!mayChange(request.person)) return reply.redirect(`/app/pages/${page.id}`, 303)
      const { t } = request
      return reply.page(
        t.t('editor.page.confirmDelete', { title: page.title }),
        'sites',
        html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [page.title, `/app/pages/${page.id}`], [t.t('editor.delete')]])}
<p>${t.t('editor.page.confirmDelete.text', { blocks: total })}</p>
<form method="post" action="/app/pages/${page.id}/delete" class="actions">${hidden(reply.formToken(), versionOf(pageView(page)))}<button type="submit" class="danger">${t.t('editor.page.deleteButton')}</button> <a href="/app/pages/${page.id}">${t.t('editor.keepIt')}</a></form>`,
      )
    },
  )

  routes.post(
    '/pages/:id/delete',
    {
      config: { operation: 'dashboard.pages.delete' },
      schema: { hide: true, params: PageParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const accountId = request.person.accountId
      const { site, page } = await ownPage(app, accountId, request.params.id)
      const version = request.body._version
      try {
        await auditedChange(request, async (trx) => {
          if (!(await deletePage(trx, accountId, page.id, version ? sameVersion(version, pageView) : undefined)))
            throw new errors.notFound('There is no such page in your account')
        })
      } catch (error) {
        const refusal = refusalOf(error, {}, 'page', request.t)
        if (!refusal?.stale) throw error
        await refused(request, reply, refusal.status)
        const now = await ownPage(app, accountId, page.id)
        return render(app, reply, {
          ...now,
          state: formState(pageValues(now.page)),
          problem: html`${request.t.t('editor.page.changedBeforeDelete')}`,
        })
      }
      return reply.redirect(`/app/sites/${site.id}?done=page-deleted`, 303)
    },
  )
}
