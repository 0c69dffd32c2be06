import { describe, expect, it } from 'vitest'
import { translator } from '../../src/domain/i18n/translator.ts'

// The dashboard's and the mails' messages whose grammar turns on a number or a choice, formatted
// as the pages and mails format them.
describe('the messages with plurals and choices of the team, reports and mails', () => {
  const de = translator('de')
  const fr = translator('fr')
  const en = translator('en')
  const full = { plan: 'Plus', extra: 1, seats: 3, members: 3, pending: 0, upgrade: '…' }

  it('says where the seats stand', () => {
    expect(de.t('team.seats.full', { ...full, included: de.t('team.seats.count', { n: 2 }) })).toBe(
      'Ihr Konto hat den Tarif Plus; er enthält 2 Plätze (mit 1 zusätzlichen Platz: insgesamt 3), und das Konto hat 3 Mitglieder; …',
    )
    expect(fr.t('team.seats.full', { ...full, extra: 0, members: 1, pending: 1, included: fr.t('team.seats.count', { n: 2 }) })).toBe(
      'Votre compte a l’offre Plus, qui comprend 2 places, et compte 1 membre et 1 invitation en attente ; …',
    )
    expect(en.t('team.seats.line', { taken: 1, seats: 5, members: 1, pending: 0 })).toBe('1 of 5 seats taken (1 member, 0 pending).')
    expect(fr.t('team.seats.line', { taken: 1, seats: 5, members: 1, pending: 0 })).toBe('1 place occupée sur 5 (1 membre, 0 en attente).')
  })

  it('says how a score changed since the last report, one point or more', () => {
    const change = { on: '2026-11-21', before: 40 }
    expect(de.t('mail.report.change', { ...change, way: 'up', by: 1 })).toBe('1 Punkt mehr seit dem letzten Bericht vom 2026-11-21 (40).')
    expect(de.t('mail.report.change', { ...change, way: 'down', by: 3 })).toBe(
      '3 Punkte weniger seit dem letzten Bericht vom 2026-11-21 (40).',
    )
    expect(fr.t('mail.report.change', { ...change, way: 'same', by: 0 })).toBe('Inchangé depuis le dernier rapport du 2026-11-21 (40).')
    expect(en.t('mail.report.change', { ...change, on: 'none', way: 'up', by: 2 })).toBe('Up 2 since the last report (40).')
  })

  it('sets the visitors beside the week or the days before', () => {
    expect(de.t('mail.visits.change', { way: 'up', by: '1.250', days: 7 })).toBe('1.250 mehr als in der Woche davor')
    expect(fr.t('mail.visits.change', { way: 'same', by: '0', days: 30 })).toBe('autant que les 30 jours d’avant')
    expect(en.t('mail.visits.change', { way: 'down', by: '4', days: 30 })).toBe('down 4 from the 30 days before')
  })

  it('counts the pages of a premium audit', () => {
    expect(de.t('reports.premium', { checked: 1, found: 0 })).toBe(
      'Die Premium-Prüfung hat 1 Seite geprüft und auf keiner etwas zu verbessern gefunden.',
    )
    expect(fr.t('reports.premium', { checked: 12, found: 1 })).toBe('L’audit premium a vérifié 12 pages ; 1 présente des constats.')
  })
})
