import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { BLOCK_TYPES, BlockContents, type BlockType } from '../../../domain/sites/block-content.ts'
import { blockView, deleteBlock, getAccountBlock, insertBlock, updateBlock, type Block } from '../../../domain/sites/blocks.ts'
import { renderMarkdown } from '../../../domain/sites/markdown.ts'
import { getAccountPage, type Page } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { literalUnion } from '../../../schemas.ts'
import { errors } from '../../../errors.ts'
import { html, raw, type SafeHtml } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import {
  allowPreviewImages,
  blockForms,
  contentFrom,
  itemCount,
  valuesFromBody,
  valuesFromContent,
  withItemAdded,
  withItemRemoved,
  withoutEmptyItems,
  type BlockField,
  type BlockForm,
} from './block-forms.ts'
import { BlockParams, crumbs, ownBlock, ownPage, PageParams, viewOnly } from './context.ts'
import type { MessageKey, Translator } from '../../../domain/i18n/translator.ts'
import type { Media } from '../../../domain/media/media.ts'
import { mediaPicker, pickableMedia } from '../media-picker.ts'
import { backOf, goneMeanwhile } from './gone.ts'
import { mayChange } from '../../permissions.ts'
import {
  choice,
  defaultSave,
  errorLine,
  field,
  fieldErrors,
  fieldId,
  FormBodySchema,
  formState,
  hidden,
  issuesOf,
  problems,
  refusalOf,
  refused,
  refusedState,
  sameVersion,
  textOf,
  versionOf,
  type FieldSpec,
  type FormBody,
  type FormState,
} from './form.ts'

/** The legends of a block form's groups of fields (a button, a picture, an address). */
const GROUPS: Record<string, MessageKey> = {
  cta: 'editor.block.group.cta',
  image: 'editor.block.group.image',
  address: 'editor.block.group.address',
}
const groupName = (t: Translator, group: string) => (GROUPS[group] ? t.t(GROUPS[group]) : group)
/** A kind of block mid-sentence: German writes its nouns with a capital, English and French in lower case. */
const kindWord = (t: Translator, form: BlockForm) => (t.lang === 'de' ? form.label : form.label.toLowerCase())

interface Target {
  site: SiteRecord
  page: Page
  form: BlockForm
  /** The block being edited; none while adding one. */
  block?: Block
  /** The version the form carries: the block's as the person first saw it. */
  version?: string
}

function specsFor(form: BlockForm, values: Record<string, string>): Map<string, FieldSpec> {
  const specs = new Map<string, FieldSpec>(form.fields.map((f) => [f.name, f]))
  if (form.list) {
    specs.set('items', { name: 'items', label: form.list.legend, format: form.list.atLeastOne })
    for (let i = 0; i < itemCount(form, values); i++)
      for (const f of form.list.fields)
        specs.set(`items.${i}.${f.name}`, { ...f, name: `items.${i}.${f.name}`, label: `${form.list.item} ${i + 1}, ${f.label}` })
  }
  return specs
}

function labelsFor(t: Translator, form: BlockForm, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    [...specsFor(form, values)].map(([name, spec]) => [
      name,
      GROUPS[name.split('.')[0]!] && !name.startsWith('items.') ? `${groupName(t, name.split('.')[0]!)}, ${spec.label}` : spec.label,
    ]),
  )
}

/** The single fields, a group (button, picture) in a fieldset of its own. */
/** One field of a block form: a photo picker, a select or a text field. */
function oneField(t: Translator, state: FormState, spec: BlockField, library: readonly Media[]): SafeHtml {
  if (spec.media) return mediaPicker(t, state, spec, library)
  return spec.choices ? choice(state, spec, spec.choices, t) : field(state, spec, t)
}

function singleFields(t: Translator, form: BlockForm, state: FormState, library: readonly Media[]): SafeHtml {
  const parts: SafeHtml[] = []
  const done = new Set<string>()
  for (const f of form.fields) {
    const group = f.name.includes('.') ? f.name.split('.')[0]! : undefined
    if (!group) parts.push(oneField(t, state, f, library))
    else if (!done.has(group)) {
      done.add(group)
      const members = form.fields.filter((m) => m.name.startsWith(`${group}.`))
      parts.push(
        html`<fieldset class="item"><legend>${groupName(t, group)} <span class="optional">${t.t('editor.form.optional')}</span></legend>${members.map((m) => oneField(t, state, { ...m, inOptionalGroup: true } satisfies BlockField, library))}</fieldset>`,
      )
    }
  }
  return html`${parts}`
}

function itemRows(t: Translator, form: BlockForm, state: FormState, action: string, library: readonly Media[]): SafeHtml {
  const list = form.list
  if (!list) return html``
  const count = itemCount(form, state.values)
  const error = state.errors['items']
  const noun = t.lang === 'de' ? list.item : list.item.toLowerCase()
  return html`<fieldset class="field${error ? ' invalid' : ''}" id="${fieldId('items')}"${error ? html` aria-describedby="${fieldId('items')}-error"` : ''}><legend>${list.legend}</legend>
${error ? errorLine(fieldId('items'), error, t) : ''}
${Array.from(
  { length: count },
  (_, i) => html`<fieldset class="item"><legend>${list.item} ${i + 1}</legend>
${list.fields.map((f) => oneField(t, state, { ...f, name: `items.${i}.${f.name}` }, library))}
${state.readOnly ? '' : html`<button type="submit" class="secondary" name="_do" value="remove:${i}" formaction="${action}#${fieldId('items')}">${t.t('editor.block.removeItem', { item: noun, n: i + 1 })}</button>`}</fieldset>`,
)}
${state.readOnly ? '' : html`<button type="submit" class="secondary" name="_do" value="add" formaction="${action}#${fieldId(`items.${count}.${list.fields[0]!.name}`)}">${t.t('editor.block.addItem', { item: noun })}</button>`}
</fieldset>`
}

async function render(reply: FastifyReply, target: Target, state: FormState, options: { preview?: boolean } = {}) {
  const { site, page, form, block } = target
  const { t } = reply.request
  const kind = kindWord(t, form)
  const usesMedia = [...form.fields, ...(form.list?.fields ?? [])].some((f) => f.media)
  const library = usesMedia ? await pickableMedia(reply.server.db, reply.request.person.accountId) : []
  const action = block ? `/app/blocks/${block.id}` : `/app/pages/${page.id}/blocks`
  const shown = form.list && itemCount(form, state.values) === 0 ? { ...state, values: withItemAdded(form, state.values) } : state
  const markdown = form.type === 'text' ? (shown.values['markdown'] ?? '') : ''
  const trail = crumbs(t, [
    [site.name, `/app/sites/${site.id}`],
    [page.title, `/app/pages/${page.id}`],
    [block ? form.label : t.t('editor.block.newCrumb', { kind })],
  ])
  const looks = (words: string) =>
    html`${markdown.trim() ? html`<div class="rendered">${raw(renderMarkdown(markdown))}</div>` : html`<p class="muted">${words}</p>`}`
  if (form.type === 'text') allowPreviewImages(reply)
  if (!mayChange(reply.request.person)) {
    // A viewer reads the block as it is saved; there is nothing to read in a block not added yet.
    const readOnly = { ...shown, readOnly: true }
    return reply.page(
      block ? form.label : t.t('editor.block.addTitle', { kind }),
      'sites',
      html`${trail}${viewOnly(t, 'page')}${block ? html`<div class="card">${singleFields(t, form, readOnly, library)}${itemRows(t, form, readOnly, action, library)}${form.type === 'text' ? html`<h2>${t.t('editor.block.howItLooks')}</h2>${looks(t.t('editor.block.nothingWritten'))}` : ''}</div>` : ''}<p><a href="/app/pages/${page.id}">${t.t('editor.backToPage')}</a></p>`,
    )
  }
  const body = html`${trail}
<p>${form.description}</p>
${problems(shown, labelsFor(t, form, shown.values), t)}
<form method="post" action="${action}" novalidate>${hidden(reply.formToken(), target.version)}${block ? html`<input type="hidden" name="_page" value="${page.id}"><input type="hidden" name="_type" value="${form.type}">` : html`<input type="hidden" name="type" value="${form.type}">`}<input type="hidden" name="_site" value="${site.id}">
${defaultSave(t.t('editor.block.save'))}
${singleFields(t, form, shown, library)}
${itemRows(t, form, shown, action, library)}
${
  form.type === 'text'
    ? html`<p><button type="submit" class="secondary" name="_do" value="preview" formaction="${action}#preview-h">${t.t('editor.block.showPreview')}</button></p>
<section class="card" aria-labelledby="preview-h"><h2 id="preview-h">${t.t('editor.block.willLook', { unsaved: options.preview ? 'yes' : 'no' })}</h2>${looks(t.t('editor.block.nothingWritten'))}</section>`
    : ''
}
<div class="actions"><button type="submit" name="_do" value="save">${t.t('editor.block.save')}</button> <a href="/app/pages/${page.id}">${t.t('editor.cancel')}</a></div>
</form>`
  return reply.page(block ? t.t('editor.block.editTitle', { kind }) : t.t('editor.block.addTitle', { kind }), 'sites', body)
}

/** One submission of a block form: a row added or removed, the preview, or the block saved. */
async function submit(app: FastifyInstance, request: FastifyRequest<{ Body: FormBody }>, reply: FastifyReply, target: Target) {
  const { form } = target
  const doing = textOf(request.body, '_do') || 'save'
  const typed = valuesFromBody(form, request.body)
  if (doing === 'add' && form.list) return render(reply, target, formState(withItemAdded(form, typed)))
  const removing = /^remove:(\d{1,3})$/.exec(doing)
  if (removing && form.list) return render(reply, target, formState(withItemRemoved(form, typed, Number(removing[1]))))
  if (doing === 'preview') return render(reply, target, formState(typed), { preview: true })
  if (doing !== 'save') throw new errors.validationFailed(request.t.t('editor.block.unknownButton'))

  const values = withoutEmptyItems(form, typed)
  const content = contentFrom(form, values)
  // The content's own name of the items (a gallery's images) is the form's `items`.
  const key = form.list?.key
  const itemsOf = (path: string) => (key && (path === key || path.startsWith(`${key}.`)) ? `items${path.slice(key.length)}` : path)
  const wrong = fieldErrors(issuesOf(BlockContents[form.type], content), specsFor(form, values), itemsOf, request.t)
  if (Object.keys(wrong).length) {
    await refused(request, reply, 400)
    return render(reply, target, { values, errors: wrong })
  }
  const accountId = request.person.accountId
  try {
    const saved = await auditedChange(request, async (trx) => {
      if (!target.block) return insertBlock(trx, target.page.id, { type: form.type, content })
      const check = target.version ? sameVersion(target.version, blockView) : undefined
      const changed = await updateBlock(trx, accountId, target.block.id, { content }, check)
      if (!changed) throw new errors.notFound('There is no such block in your account')
      return changed
    })
    return reply.redirect(`/app/pages/${target.page.id}?done=${target.block ? 'block-saved' : 'block-added'}#block-${saved.id}`, 303)
  } catch (error) {
    if (target.block && error instanceof errors.notFound) return blockGone(app, request, reply)
    const refusal = refusalOf(error, {}, 'block', request.t)
    if (!refusal) throw error
    await refused(request, reply, refusal.status)
    if (!refusal.stale || !target.block) return render(reply, target, refusedState(values, refusal))
    const now = await ownBlock(app, accountId, target.block.id)
    const current = { ...target, block: now.block, version: versionOf(blockView(now.block)) }
    return render(reply, current, refusedState(values, refusal, valuesFromContent(form, now.block.content as Record<string, unknown>)))
  }
}

/**
 * A block's form saved after the block was deleted: what was typed, to copy into a new block. The
 * form names its page, site and kind (`_page`, `_site`, `_type`); the page may be gone too.
 */
async function blockGone(app: FastifyInstance, request: FastifyRequest<{ Body: FormBody }>, reply: FastifyReply) {
  const body = request.body
  const { t } = request
  const type = textOf(body, '_type')
  const form = (BLOCK_TYPES as readonly string[]).includes(type) ? blockForms(t)[type as BlockType] : undefined
  const pageId = textOf(body, '_page')
  const page = /^page_[A-Za-z0-9_-]{1,64}$/.test(pageId) ? await getAccountPage(app.db, request.person.accountId, pageId) : undefined
  return goneMeanwhile(request, reply, {
    title: t.t('editor.block.gone.title'),
    what: t.t('editor.block.gone.what', { kind: form ? kindWord(t, form) : '', page: page ? 'yes' : 'no' }),
    typed: typedIn(t, form, body),
    back: await backOf(app.db, request, page),
    copyInto: t.t('editor.block.gone.into'),
  })
}

/** What was typed into a block form, by label (by name, for a form of no known kind). */
function typedIn(t: Translator, form: BlockForm | undefined, body: FormBody): Array<readonly [string, string]> {
  if (!form)
    return Object.keys(body)
      .filter((name) => !name.startsWith('_') && name !== 'type')
      .map((name) => [name, textOf(body, name)] as const)
  const values = withoutEmptyItems(form, valuesFromBody(form, body))
  return Object.entries(labelsFor(t, form, values)).map(([name, label]) => [label, values[name] ?? ''] as const)
}

function confirmDelete(reply: FastifyReply, target: { site: SiteRecord; page: Page; block: Block }, problem?: SafeHtml) {
  const { site, page, block } = target
  const { t } = reply.request
  const form = blockForms(t)[block.type as BlockType]
  if (block.type === 'text') allowPreviewImages(reply)
  return reply.page(
    t.t('editor.block.confirmDelete', { kind: kindWord(t, form) }),
    'sites',
    html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [page.title, `/app/pages/${page.id}`], [t.t('editor.block.delete')]])}
${problem ? html`<div class="error problems" role="alert"><h2>${t.t('editor.block.nothingDeleted')}</h2><p>${problem}</p></div>` : ''}
<div class="card">${form.summary(blockView(block).content as never)}</div>
<p>${t.t('editor.block.confirmDelete.text')}</p>
<form method="post" action="/app/blocks/${block.id}/delete" class="actions">${hidden(reply.formToken(), versionOf(blockView(block)))}<button type="submit" class="danger">${t.t('editor.block.delete')}</button> <a href="/app/pages/${page.id}#block-${block.id}">${t.t('editor.keepIt')}</a></form>`,
  )
}

/**
 * Adding and changing a block: one form per block type; list items added and removed by submit
 * buttons that send the form back with one row more or less (no script needed); the text block's
 * Markdown shown as it will be published. Saved through insertBlock/updateBlock, the functions
 * behind POST /v1/pages/{id}/blocks and PATCH /v1/blocks/{id}, the content checked by its type's schema.
 */
export default async function blockScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/pages/:id/blocks/new',
    {
      config: { operation: 'dashboard.blocks.new' },
      schema: { hide: true, params: PageParams, querystring: Type.Object({ type: literalUnion(BLOCK_TYPES) }) },
    },
    async (request, reply) => {
      const { site, page } = await ownPage(app, request.person.accountId, request.params.id, request.t)
      // BLOCK_TYPES is a list, not a tuple, so the schema's static type cannot name the literals.
      const form = blockForms(request.t)[request.query.type as BlockType]
      return render(
        reply,
        { site, page, form },
        formState(form.list ? withItemAdded(form, valuesFromContent(form, {})) : valuesFromContent(form, {})),
      )
    },
  )

  routes.post(
    '/pages/:id/blocks',
    {
      config: { operation: 'dashboard.blocks.create' },
      schema: { hide: true, params: PageParams, body: FormBodySchema },
    },
    async (request, reply) => {
      const type = textOf(request.body, 'type')
      if (!(await getAccountPage(app.db, request.person.accountId, request.params.id))) {
        const { t } = request
        const form = (BLOCK_TYPES as readonly string[]).includes(type) ? blockForms(t)[type as BlockType] : undefined
        return goneMeanwhile(request, reply, {
          title: t.t('editor.page.gone.title'),
          what: t.t('editor.block.gone.pageWhat'),
          typed: typedIn(t, form, request.body),
          back: await backOf(app.db, request),
          copyInto: t.t('editor.block.gone.pageInto'),
        })
      }
      const { site, page } = await ownPage(app, request.person.accountId, request.params.id, request.t)
      if (!(BLOCK_TYPES as readonly string[]).includes(type)) throw new errors.validationFailed(request.t.t('editor.block.chooseKind'))
      return submit(app, request, reply, { site, page, form: blockForms(request.t)[type as BlockType] })
    },
  )

  routes.get(
    '/blocks/:id',
    { config: { operation: 'dashboard.blocks.get' }, schema: { hide: true, params: BlockParams } },
    async (request, reply) => {
      const { site, page, block } = await ownBlock(app, request.person.accountId, request.params.id, request.t)
      const form = blockForms(request.t)[block.type as BlockType]
      return render(
        reply,
        { site, page, block, form, version: versionOf(blockView(block)) },
        formState(valuesFromContent(form, block.content as Record<string, unknown>)),
      )
    },
  )

  routes.post(
    '/blocks/:id',
    {
      config: { operation: 'dashboard.blocks.update' },
      schema: { hide: true, params: BlockParams, body: FormBodySchema },
    },
    async (request, reply) => {
      if (!(await getAccountBlock(app.db, request.person.accountId, request.params.id))) return blockGone(app, request, reply)
      const { site, page, block } = await ownBlock(app, request.person.accountId, request.params.id, request.t)
      const version = textOf(request.body, '_version') || undefined
      return submit(app, request, reply, {
        site,
        page,
        block,
        form: blockForms(request.t)[block.type as BlockType],
        ...(version ? { version } : {}),
      })
    },
  )

  routes.get(
    '/blocks/:id/delete',
    { config: { operation: 'dashboard.blocks.confirmDelete' }, schema: { hide: true, params: BlockParams } },
    async (request, reply) => {
      const target = await ownBlock(app, request.person.accountId, request.params.id, request.t)
      // A viewer deletes nothing: the block as it is, read-only.
      return mayChange(request.person) ? confirmDelete(reply, target) : reply.redirect(`/app/blocks/${target.block.id}`, 303)
    },
  )

  routes.post(
    '/blocks/:id/delete',
    {
      config: { operation: 'dashboard.blocks.delete' },
      schema: {
        hide: true,
        params: BlockParams,
        body: Type.Object(
          { _csrf: Type.Optional(Type.String({ maxLength: 200 })), _version: Type.Optional(Type.String({ maxLength: 100 })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const accountId = request.person.accountId
      const target = await ownBlock(app, accountId, request.params.id)
      const version = request.body._version
      try {
        await auditedChange(request, async (trx) => {
          if (!(await deleteBlock(trx, accountId, target.block.id, version ? sameVersion(version, blockView) : undefined)))
            throw new errors.notFound('There is no such block in your account')
        })
      } catch (error) {
        const refusal = refusalOf(error, {}, 'block', request.t)
        if (!refusal?.stale) throw error
        await refused(request, reply, refusal.status)
        return confirmDelete(
          reply,
          await ownBlock(app, accountId, target.block.id),
          html`${request.t.t('editor.block.changedBeforeDelete')}`,
        )
      }
      return reply.redirect(`/app/pages/${target.page.id}?done=block-deleted`, 303)
    },
  )
}
