/*! Web Presence sales assistant widget. One script tag: <script src="{base_url}/widget.js" defer></script> */
;(() => {
  'use strict'
  const script = document.currentScript
  if (!script || window.__wpsWidget) return
  window.__wpsWidget = true

  const API = new URL(script.src).origin + '/api/agent'
  // data-site names the site's hostname when the page is served elsewhere (a preview, a local copy).
  const siteHost = script.dataset.site || location.hostname
  const pageUrl = () => (script.dataset.site ? `https://${siteHost}${location.pathname}` : location.href).slice(0, 500)
  const storeKey = `wps-assistant:${siteHost}`
  const POLL_MS = 5000

  const TEXTS = {
    en: {
      open: 'Chat with us',
      close: 'Close chat',
      title: 'Assistant',
      send: 'Send',
      input: 'Your message',
      typing: 'Typing…',
      failed: 'The message could not be sent.',
      retry: 'Retry',
      unavailable: 'The assistant is not available right now.',
      email: 'Email',
      name: 'Name (optional)',
      note: 'Message (optional)',
      consent: 'I agree',
      submit: 'Send my details',
      thanks: 'Thank you, we will get back to you.',
      erase: 'Erase conversation',
      erased: 'The conversation was erased.',
      requested: 'A person from the team has been asked to join.',
      active: 'A person from the team is in this chat.',
      resolved: 'The team member has left the chat.',
      operator: 'Team',
      you: 'You',
      book: 'Book a time',
      leadTitle: 'Leave your contact details',
      dismiss: 'No thanks',
    },
    de: {
      open: 'Mit uns chatten',
      close: 'Chat schließen',
      title: 'Assistent',
      send: 'Senden',
      input: 'Ihre Nachricht',
      typing: 'Schreibt…',
      failed: 'Die Nachricht konnte nicht gesendet werden.',
      retry: 'Erneut senden',
      unavailable: 'Der Assistent ist gerade nicht erreichbar.',
      email: 'E-Mail',
      name: 'Name (optional)',
      note: 'Nachricht (optional)',
      consent: 'Ich bin einverstanden',
      submit: 'Angaben senden',
      thanks: 'Danke, wir melden uns bei Ihnen.',
      erase: 'Unterhaltung löschen',
      erased: 'Die Unterhaltung wurde gelöscht.',
      requested: 'Ein Mensch aus dem Team wurde dazugebeten.',
      active: 'Ein Mensch aus dem Team ist im Chat.',
      resolved: 'Das Teammitglied hat den Chat verlassen.',
      operator: 'Team',
      you: 'Sie',
      book: 'Termin buchen',
      leadTitle: 'Kontaktdaten hinterlassen',
      dismiss: 'Nein, danke',
    },
    fr: {
      open: 'Discuter avec nous',
      close: 'Fermer la discussion',
      title: 'Assistant',
      send: 'Envoyer',
      input: 'Votre message',
      typing: 'Rédaction…',
      failed: "Le message n'a pas pu être envoyé.",
      retry: 'Réessayer',
      unavailable: "L'assistant n'est pas disponible pour le moment.",
      email: 'E-mail',
      name: 'Nom (facultatif)',
      note: 'Message (facultatif)',
      consent: "J'accepte",
      submit: 'Envoyer mes coordonnées',
      thanks: 'Merci, nous revenons vers vous.',
      erase: 'Effacer la conversation',
      erased: 'La conversation a été effacée.',
      requested: "Une personne de l'équipe a été invitée à rejoindre la discussion.",
      active: "Une personne de l'équipe participe à la discussion.",
      resolved: "Le membre de l'équipe a quitté la discussion.",
      operator: 'Équipe',
      you: 'Vous',
      book: 'Réserver un créneau',
      leadTitle: 'Laisser vos coordonnées',
      dismiss: 'Non merci',
    },
  }
  const pageLocale = (document.documentElement.lang || navigator.language || 'en').slice(0, 2).toLowerCase()
  let locale = TEXTS[pageLocale] ? pageLocale : 'en'
  const t = (key) => TEXTS[locale][key]

  const CSS = `
:host{all:initial;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a}
*{box-sizing:border-box}
button,input,textarea{font:inherit}
.launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;border:0;border-radius:28px;padding:14px 20px;background:#1d4ed8;color:#fff;font-weight:600;box-shadow:0 4px 14px rgba(0,0,0,.25);cursor:pointer}
.launcher:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.panel{position:fixed;right:20px;bottom:20px;z-index:2147483001;width:min(380px,calc(100vw - 24px));height:min(560px,calc(100vh - 40px));display:flex;flex-direction:column;background:#fff;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.3);overflow:hidden;transition:opacity .15s,transform .15s}
.panel[hidden]{display:none}
@media (prefers-reduced-motion:reduce){.panel{transition:none}}
@media (max-width:480px){.panel{right:0;bottom:0;width:100vw;height:100vh;border-radius:0}}
header{display:flex;align-items:center;gap:8px;padding:12px 14px;background:#1d4ed8;color:#fff}
header h2{flex:1;margin:0;font-size:16px}
header button{background:transparent;color:#fff;border:1px solid rgba(255,255,255,.6);border-radius:6px;padding:4px 8px;cursor:pointer}
.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px;margin:0;list-style:none}
.msg{max-width:85%;padding:8px 12px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}
.visitor{align-self:flex-end;background:#1d4ed8;color:#fff}
.assistant{align-self:flex-start;background:#f1f5f9}
.operator{align-self:flex-start;background:#fef3c7}
.who{display:block;font-size:12px;font-weight:600}
.note{align-self:center;font-size:13px;color:#374151;text-align:center}
.chips{display:flex;flex-wrap:wrap;gap:6px;padding:0 12px}
.chip{border:1px solid #1d4ed8;background:#fff;color:#1d4ed8;border-radius:16px;padding:6px 12px;cursor:pointer}
form.chat{display:flex;gap:6px;padding:10px;border-top:1px solid #e5e7eb}
form.chat input{flex:1;padding:8px 10px;border:1px solid #6b7280;border-radius:8px}
.primary{background:#1d4ed8;color:#fff;border:0;border-radius:8px;padding:8px 14px;cursor:pointer}
.primary[disabled]{background:#6b7280}
form.lead{display:flex;flex-direction:column;gap:6px;padding:10px 12px;border-top:1px solid #e5e7eb;background:#f8fafc}
form.lead label{font-size:13px;font-weight:600}
form.lead input,form.lead textarea{padding:6px 8px;border:1px solid #6b7280;border-radius:6px}
form.lead .consent{font-size:13px;font-weight:400}
.consent a{color:#1d4ed8}
.row{display:flex;gap:6px;justify-content:flex-end}
.link{background:none;border:0;color:#1d4ed8;text-decoration:underline;cursor:pointer;padding:4px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`

  // ── State kept across page loads: the session capability only, never the transcript.
  const saved = () => {
    try {
      return JSON.parse(localStorage.getItem(storeKey) || 'null')
    } catch {
      return null
    }
  }
  const save = (value) => {
    try {
      value ? localStorage.setItem(storeKey, JSON.stringify(value)) : localStorage.removeItem(storeKey)
    } catch {
      /* private mode */
    }
  }

  let session = null // bootstrap answer
  let pending = null // {text, turn_id} of a turn that failed on the network, retried with the same turn_id
  let shownMessages = 0
  let pollTimer = 0
  let surfaced = false
  let visitorSpoke = false

  const post = async (path, body, method = 'POST', keepalive = false) => {
    const res = await fetch(API + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
      keepalive,
    })
    const data = res.status === 204 ? null : await res.json().catch(() => null)
    return { status: res.status, data }
  }
  const capability = () => ({ session_id: session.session_id, session_token: session.session_token })
  // keepalive: a click on a link leaves the page, and the event must still arrive.
  const event = (type) => {
    if (session) post('/event', { ...capability(), type }, 'POST', true).catch(() => {})
  }
  const turnId = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(16))
    return 't_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  }

  // ── DOM
  const host = document.createElement('div')
  host.setAttribute('data-wps-assistant', '')
  const root = host.attachShadow({ mode: 'open' })
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'text') node.textContent = v
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v)
      else if (v !== undefined && v !== false) node.setAttribute(k, v === true ? '' : v)
    }
    node.append(...children)
    return node
  }
  const style = el('style', { text: CSS })
  const launcher = el('button', { class: 'launcher', type: 'button', 'aria-haspopup': 'dialog', 'aria-expanded': 'false' })
  const title = el('h2', { id: 'wps-title' })
  const eraseBtn = el('button', { type: 'button' })
  const closeBtn = el('button', { type: 'button' })
  const log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-labelledby': 'wps-title' })
  const chips = el('div', { class: 'chips' })
  const status = el('p', { class: 'sr', role: 'status' })
  const input = el('input', { type: 'text', maxlength: '2000', autocomplete: 'off', id: 'wps-input' })
  const inputLabel = el('label', { class: 'sr', for: 'wps-input' })
  const sendBtn = el('button', { class: 'primary', type: 'submit' })
  const chatForm = el('form', { class: 'chat' }, inputLabel, input, sendBtn)
  const leadSlot = el('div')
  const leadLink = el('button', { class: 'link', type: 'button', hidden: true })
  const panel = el(
    'div',
    { class: 'panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'wps-title', hidden: true },
    el('header', {}, title, eraseBtn, closeBtn),
    log,
    chips,
    leadSlot,
    chatForm,
    el('div', { class: 'row' }, leadLink),
    status,
  )
  root.append(style, launcher, panel)

  const relabel = () => {
    launcher.textContent = t('open')
    closeBtn.textContent = '×'
    closeBtn.setAttribute('aria-label', t('close'))
    eraseBtn.textContent = t('erase')
    title.textContent = session?.persona ? `${session.persona} · ${t('title')}` : t('title')
    inputLabel.textContent = t('input')
    input.placeholder = t('input')
    sendBtn.textContent = t('send')
    leadLink.textContent = t('leadTitle')
    leadLink.hidden = !session?.lead_consent
  }

  const addMessage = (role, text) => {
    const who = role === 'visitor' ? t('you') : role === 'operator' ? t('operator') : session?.persona || t('title')
    log.append(el('div', { class: `msg ${role}` }, el('span', { class: 'who', text: who }), document.createTextNode(text)))
    log.scrollTop = log.scrollHeight
  }
  const addNote = (text) => {
    log.append(el('div', { class: 'note', text }))
    log.scrollTop = log.scrollHeight
  }
  const setSuggestions = (list) => {
    chips.replaceChildren(
      ...(list || []).map((s) =>
        el('button', {
          class: 'chip',
          type: 'button',
          text: s.label,
          onclick: () => {
            event('suggestion_clicked')
            send(s.prompt)
          },
        }),
      ),
    )
  }

  let handoffState = 'none'
  const showHandoff = (state) => {
    if (state === handoffState) return
    handoffState = state
    if (state === 'requested' || state === 'active' || state === 'resolved') addNote(t(state))
    if (state === 'active') event('handoff_ack')
    schedulePoll()
  }

  // Operator messages arrive in the stored transcript; rehydrating shows what is new.
  const schedulePoll = () => {
    clearTimeout(pollTimer)
    if (panel.hidden || !session || (handoffState !== 'requested' && handoffState !== 'active')) return
    pollTimer = setTimeout(async () => {
      const res = await post('/bootstrap', { ...capability(), url: pageUrl() }).catch(() => null)
      if (res?.status === 200) {
        for (const m of res.data.messages.slice(shownMessages)) if (m.role === 'operator') addMessage('operator', m.text)
        shownMessages = res.data.messages.length
        showHandoff(res.data.handoff.state)
      }
      schedulePoll()
    }, POLL_MS)
  }

  const applyAction = (action) => {
    if (!action) return
    if (action.type === 'navigate') {
      log.append(el('div', { class: 'note' }, el('a', { href: action.href, onclick: () => event('action_clicked'), text: action.href })))
    } else if (action.type === 'open_booking') {
      log.append(
        el(
          'div',
          { class: 'note' },
          el('a', {
            href: action.url,
            target: '_blank',
            rel: 'noopener',
            onclick: () => {
              event('action_clicked')
              event('booking_opened')
            },
            text: t('book'),
          }),
        ),
      )
    } else if (action.type === 'capture_lead') {
      showLeadForm()
    }
  }

  const showLeadForm = () => {
    const consent = session?.lead_consent
    if (!consent || leadSlot.firstChild) return
    const email = el('input', { type: 'email', id: 'wps-email', required: true, maxlength: '254', autocomplete: 'email' })
    const name = el('input', { type: 'text', id: 'wps-name', maxlength: '200', autocomplete: 'name' })
    const note = el('textarea', { id: 'wps-note', maxlength: '1000', rows: '2' })
    const agree = el('input', { type: 'checkbox', id: 'wps-consent', required: true })
    const form = el(
      'form',
      { class: 'lead', 'aria-label': t('leadTitle') },
      el('strong', { text: t('leadTitle') }),
      el('label', { for: 'wps-email', text: t('email') }),
      email,
      el('label', { for: 'wps-name', text: t('name') }),
      name,
      el('label', { for: 'wps-note', text: t('note') }),
      note,
      el(
        'label',
        { class: 'consent', for: 'wps-consent' },
        agree,
        ` ${consent.text} `,
        el('a', { href: consent.privacy.url, target: '_blank', rel: 'noopener', text: consent.privacy.label }),
      ),
      el(
        'div',
        { class: 'row' },
        el('button', {
          class: 'link',
          type: 'button',
          text: t('dismiss'),
          onclick: () => {
            leadSlot.replaceChildren()
            input.focus()
          },
        }),
        el('button', { class: 'primary', type: 'submit', text: t('submit') }),
      ),
    )
    form.addEventListener('submit', async (e) => {
      e.preventDefault()
      const payload = {
        email: email.value.trim(),
        consent: agree.checked,
        consent_version: consent.version,
        consent_digest: consent.digest,
      }
      if (name.value.trim()) payload.name = name.value.trim()
      if (note.value.trim()) payload.note = note.value.trim()
      const res = await post('/event', { ...capability(), type: 'lead_submitted', payload }).catch(() => null)
      if (res?.status === 202) {
        leadSlot.replaceChildren()
        addNote(t('thanks'))
        input.focus()
      } else {
        status.textContent = t('failed')
        addNote(t('failed'))
      }
    })
    leadSlot.replaceChildren(form)
    email.focus()
  }

  const start = async () => {
    const stored = saved()
    let res = null
    try {
      if (stored) {
        res = await post('/bootstrap', { ...stored, url: pageUrl() })
        if (res.status === 404 || res.status === 400) {
          save(null)
          res = null
        }
      }
      if (!res) res = await post('/bootstrap', { url: pageUrl(), ...(TEXTS[pageLocale] ? { locale: pageLocale } : {}) })
    } catch {
      res = null
    }
    if (!res || res.status !== 200) {
      if (res?.status === 404) {
        host.remove()
        return false
      } // no assistant on this site
      addNote(t('unavailable'))
      return true
    }
    session = res.data
    locale = session.locale
    save(capability())
    relabel()
    log.replaceChildren()
    if (session.messages.length === 0) addMessage('assistant', session.opener.text)
    for (const m of session.messages) addMessage(m.role, m.text)
    shownMessages = session.messages.length
    setSuggestions(session.messages.length === 0 ? session.opener.suggestions : [])
    handoffState = session.handoff.state
    if (handoffState === 'requested' || handoffState === 'active') addNote(t(handoffState))
    return true
  }

  let sending = false
  const send = async (text, retry) => {
    text = (text || '').trim()
    if (!text || sending) return
    if (!session) {
      addNote(t('unavailable'))
      return
    }
    sending = true
    sendBtn.disabled = true
    setSuggestions([])
    const turn = retry || { text, turn_id: turnId() }
    if (!retry) addMessage('visitor', text)
    visitorSpoke = true
    status.textContent = t('typing')
    try {
      let res
      for (;;) {
        res = await post('/chat', { ...capability(), message: turn.text, turn_id: turn.turn_id, url: pageUrl() })
        if (res.status !== 409 || res.data?.error !== 'turn-in-progress') break
        await new Promise((r) => setTimeout(r, Math.max(1, res.data.retry_after_seconds) * 1000))
      }
      pending = null
      if (res.status === 200) {
        shownMessages += 2
        addMessage('assistant', res.data.reply)
        setSuggestions(res.data.suggestions)
        applyAction(res.data.actions?.[0])
        showHandoff(res.data.handoff.state)
        status.textContent = ''
      } else {
        addNote(res.status === 429 || res.status === 503 ? t('unavailable') : t('failed'))
      }
    } catch {
      // A network error: the same turn_id goes again, so the service stores it at most once.
      pending = turn
      const again = el('button', {
        class: 'chip',
        type: 'button',
        text: t('retry'),
        onclick: () => {
          again.parentElement.remove()
          send(pending.text, pending)
        },
      })
      log.append(el('div', { class: 'note' }, t('failed') + ' ', again))
    } finally {
      sending = false
      sendBtn.disabled = false
    }
  }

  // ── Opening, closing and the focus trap
  let started = false
  const open = async () => {
    panel.hidden = false
    launcher.hidden = true
    launcher.setAttribute('aria-expanded', 'true')
    if (!started) {
      started = true
      if (!(await start())) return
    }
    event('assistant_opened')
    input.focus()
    schedulePoll()
  }
  const close = () => {
    panel.hidden = true
    launcher.hidden = false
    launcher.setAttribute('aria-expanded', 'false')
    clearTimeout(pollTimer)
    event(visitorSpoke ? 'assistant_closed' : 'assistant_dismissed')
    launcher.focus() // focus goes back to the control that opened the panel
  }
  const focusables = () =>
    Array.from(panel.querySelectorAll('button,input,textarea,a[href]')).filter((n) => !n.disabled && n.offsetParent !== null)
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault()
      close()
      return
    }
    if (e.key !== 'Tab') return
    const list = focusables()
    if (list.length === 0) return
    const first = list[0]
    const last = list[list.length - 1]
    const active = root.activeElement
    if (e.shiftKey && active === first) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && active === last) {
      e.preventDefault()
      first.focus()
    }
  })
  launcher.addEventListener('click', open)
  leadLink.addEventListener('click', () => showLeadForm())
  closeBtn.addEventListener('click', close)
  chatForm.addEventListener('submit', (e) => {
    e.preventDefault()
    const text = input.value
    input.value = ''
    send(text)
  })
  eraseBtn.addEventListener('click', async () => {
    if (!session) return
    const res = await post('/bootstrap', capability(), 'DELETE').catch(() => null)
    if (res?.status !== 204) {
      addNote(t('failed'))
      return
    }
    save(null)
    session = null
    pending = null
    visitorSpoke = false
    clearTimeout(pollTimer)
    leadSlot.replaceChildren()
    setSuggestions([])
    // The panel stays open on a fresh conversation, so the next message has a session to go to.
    if (!(await start())) return
    log.prepend(el('div', { class: 'note', text: t('erased') }))
    input.focus()
  })

  relabel()
  const mount = () => {
    document.body.append(host)
    // The launcher is shown once the page is idle: no layout shift, nothing blocking.
    // A returning visitor's conversation is restored once the page is idle, so the launcher can
    // report that it surfaced; a new visitor gets a session only on opening the panel.
    const surface = async () => {
      if (surfaced || !saved()) return
      surfaced = true
      started = true
      if (await start()) event('assistant_surfaced')
    }
    ;(window.requestIdleCallback || setTimeout)(surface)
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount)
  else mount()
})()
