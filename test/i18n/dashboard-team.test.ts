import { describe, expect, it } from 'vitest'
import { until } from '../helpers/polling.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'
import { person } from '../teams/helpers.ts'
import { englishSentences, expectNoEnglish, mailParts, ownerIn } from './helpers.ts'

// The Team page, the invitation mail, the join page and its code mail in German and French, over
// real HTTP with the mails caught by an SMTP server on loopback: the inviter's language for the
// mail to someone new, the invitee's own setting when they have one, the join page in the
// invitee's browser's language.
describe('the team pages and mails in German and French', async () => {
  const smtp = await startSmtpServer()
  const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <team@presence.test>' } })
  const newest = (email: string) => until(async () => smtp.to(email).at(-1))

  it('knows the English sentences it looks for', () => {
    expect(englishSentences('team.')).toContain('No invitations are pending.')
    expect(englishSentences('mail.invitation.')).toContain('Accept the invitation here')
  })

  it('shows the Team page in German, mails a new person the invitation in German, and lets them join in French', async () => {
    const owner = await ownerIn(app, base, 'chefin@example.de', { setting: 'de', plan: 'pro' })
    const members = await owner.browser.get('/app/members')
    expect(members.status, members.html).toBe(200)
    expect(members.$('html').attr('lang')).toBe('de')
    expect(members.$('h1').text()).toBe('Mitglieder')
    expect(members.$('main').text()).toContain('1 von 5 Plätzen belegt (1 Mitglied, 0 offen).')
    expect(members.$('label[for=invite-email]').text()).toBe('E-Mail-Adresse')
    expect(members.$('#invite-role option[selected]').text()).toBe('Bearbeitung')
    expectNoEnglish(members.$('body').text(), 'team.', 'nav.', 'layout.')

    const sent = await owner.browser.submit(members, { email: 'kollege@example.com', role: 'editor' }, { action: '/app/members/invite' })
    expect(sent.location).toBe('/app/members?done=invited')
    const after = await owner.browser.follow(sent)
    expect(after.$('.notice').text()).toBe('Die Einladung wurde verschickt. Der Link funktioniert einmal und 7 Tage lang.')
    expect(after.$('main').text()).toContain('Offene Einladungen')
    expect(after.$('main').text()).toContain('Einladung an kollege@example.com zurückziehen')

    const invitation = mailParts(await newest('kollege@example.com'))
    expect(invitation.subject).toBe('chefin@example.de lädt Sie zu Web Presence ein')
    expect(invitation.text).toContain('chefin@example.de lädt Sie ein, dem Konto bei Web Presence beizutreten, mit der Rolle Bearbeitung')
    expect(invitation.text).toMatch(/der Link funktioniert einmal, bis \d{1,2}\. \w+\.? \d{4}/)
    expectNoEnglish(`${invitation.subject}\n${invitation.text}`, 'mail.invitation.')
    const link = /(https?:\/\/\S+\/join\?token=\S+)/.exec(invitation.text)![1]!

    // The invitee reads French: the join page, the code mail and the dashboard after joining.
    const invitee = new Browser(base, { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } })
    const opened = await invitee.get(new URL(link).pathname + new URL(link).search)
    expect(opened.status, opened.html).toBe(200)
    expect(opened.$('h1').text()).toBe('Rejoindre un compte')
    expect(opened.$('main').text()).toContain(
      'chefin@example.de vous invite à rejoindre son compte sur Web Presence en tant que éditeur : sites, pages, publication, demandes et conversations.',
    )
    expectNoEnglish(opened.$('body').text(), 'join.')
    const codeForm = await invitee.submit(opened, {}, { action: '/join' })
    expect(codeForm.$('h1').text()).toBe('Saisissez votre code')
    expect(codeForm.$('main').text()).toContain('Nous avons envoyé un code à six chiffres à kollege@example.com.')
    const codeMail = mailParts(await until(async () => smtp.to('kollege@example.com').find((m) => !m.data.includes('join?token'))))
    expect(codeMail.subject).toBe('Votre code de connexion Web Presence')
    expect(codeMail.text).toContain('Saisissez-le pour rejoindre le compte auquel vous avez été invité.')
    expectNoEnglish(codeMail.text, 'mail.joinCode.')

    const wrong = await invitee.submit(codeForm, { code: '12' })
    expect(wrong.status).toBe(400)
    expect(wrong.$('.error').text()).toBe('Saisissez les six chiffres du code reçu par e-mail.')
    const code = /\b(\d{6})\b/.exec(codeMail.text)![1]!
    const joined = await invitee.submit(wrong, { code })
    expect(joined.location).toBe('/app?done=joined')
    expect((await invitee.follow(joined)).$('.notice').text()).toBe('Vous avez rejoint le compte. Bienvenue !')
    // An editor is refused the Team page in their words.
    const refused = await invitee.get('/app/members')
    expect(refused.status).toBe(403)
    expect(refused.$('h1').text()).toBe('Action non autorisée')
    expect(refused.$('.error').text()).toContain('Vous êtes éditeur de ce compte ; seul un propriétaire peut faire cela.')
    expectNoEnglish(refused.$('body').text(), 'refusal.')

    // A used link says so in the reader's language.
    const again = await new Browser(base, { headers: { 'accept-language': 'de' } }).get(new URL(link).pathname + new URL(link).search)
    expect(again.status).toBe(410)
    expect(again.$('h1').text()).toBe('Diese Einladung wurde schon verwendet')
    expectNoEnglish(again.$('body').text(), 'join.')
  })

  it('mails a person who chose a language in theirs, whatever the inviter reads, and asks before removing in French', async () => {
    const owner = await ownerIn(app, base, 'patronne@example.fr', { acceptLanguage: 'fr-CH, de;q=0.5', plan: 'pro' })
    const existing = await person(app, 'leser@example.de')
    await app.db.updateTable('users').set({ language: 'de' }).where('id', '=', existing.id).execute()
    const members = await owner.browser.get('/app/members')
    expect(members.$('h1').text()).toBe('Membres')
    expect(members.$('main').text()).toContain('1 place occupée sur 5 (1 membre, 0 en attente).')
    expectNoEnglish(members.$('body').text(), 'team.', 'nav.', 'layout.')
    const sent = await owner.browser.submit(members, { email: 'leser@example.de', role: 'viewer' }, { action: '/app/members/invite' })
    expect(sent.status, sent.html).toBe(303)
    const invitation = mailParts(await newest('leser@example.de'))
    expect(invitation.subject).toBe('patronne@example.fr lädt Sie zu Web Presence ein')
    expect(invitation.text).toContain('mit der Rolle Nur Lesen.')

    // A refusal beside the form, in French, the address kept.
    const twice = await owner.browser.submit(members, { email: 'patronne@example.fr', role: 'editor' }, { action: '/app/members/invite' })
    expect(twice.status).toBe(409)
    expect(twice.$('.error').first().text()).toBe('patronne@example.fr est déjà membre de ce compte.')
    expect(twice.$('#invite-email').attr('value')).toBe('patronne@example.fr')

    const confirm = await owner.browser.get(`/app/members/${owner.user.id}/remove`)
    expect(confirm.$('h1').text()).toBe('Quitter ce compte ?')
    expect(confirm.$('main a[href="/app/members"]').text()).toBe('Rester')
    expectNoEnglish(confirm.$('body').text(), 'team.')
  })
})
