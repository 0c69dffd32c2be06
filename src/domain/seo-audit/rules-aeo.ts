import { countWords, type JsonLdItem, type PageFacts } from './page.ts'
import { clip, type Problem, type Rule } from './rule.ts'

/** schema.org types the audit looks for, and the properties each needs to be useful to answer engines. */
const REQUIRED: Record<string, string[]> = {
  Organization: ['name', 'url'],
  LocalBusiness: ['name', 'address'],
  WebSite: ['name', 'url'],
  FAQPage: ['mainEntity'],
  Article: ['headline', 'author', 'datePublished'],
  BreadcrumbList: ['itemListElement'],
}
const ORGANIZATION_TYPES =
  /^(Organization|Corporation|NGO|EducationalOrganization|GovernmentOrganization|MedicalOrganization|NewsMediaOrganization|SportsOrganization|OnlineBusiness)$/
/** LocalBusiness and its common schema.org subtypes (a bakery is marked up as Bakery, not LocalBusiness). */
const LOCAL_BUSINESS_TYPES =
  /^(LocalBusiness|.*Business|.*Store|Store|Restaurant|Bakery|BarOrPub|CafeOrCoffeeShop|FastFoodRestaurant|IceCreamShop|Winery|Brewery|FoodEstablishment|ProfessionalService|LegalService|Attorney|Notary|AccountingService|FinancialService|InsuranceAgency|RealEstateAgent|TravelAgency|Dentist|Physician|Optician|Pharmacy|MedicalClinic|HairSalon|BeautySalon|DaySpa|NailSalon|HealthClub|Electrician|Plumber|HVACBusiness|RoofingContractor|GeneralContractor|Locksmith|MovingCompany|HousePainter|AutoRepair|AutoDealer|Hotel|Motel|Hostel|BedAndBreakfast|LodgingBusiness|ChildCare|Library|ShoppingCenter)$/
const ARTICLE_LIKE = /^(Article|NewsArticle|BlogPosting|TechArticle|Report)$/
const ANSWER_WORDS = { min: 8, max: 80 }
const LONG_PARAGRAPH = 150

function typesOf(item: JsonLdItem): string[] {
  const type = item['@type']
  return (Array.isArray(type) ? type : [type])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^https?:\/\/schema\.org\//, ''))
}

function canonicalType(type: string): string | undefined {
  if (REQUIRED[type]) return type
  if (ORGANIZATION_TYPES.test(type)) return 'Organization'
  if (LOCAL_BUSINESS_TYPES.test(type)) return 'LocalBusiness'
  if (ARTICLE_LIKE.test(type)) return 'Article'
  return undefined
}

function items(page: PageFacts): JsonLdItem[] {
  return page.json_ld.flatMap((d) => d.items)
}

function faqProblems(item: JsonLdItem): Problem[] {
  const entities = Array.isArray(item['mainEntity']) ? item['mainEntity'] : [item['mainEntity']]
  const bad = entities.filter((q) => {
    const question = q as JsonLdItem | undefined
    const answer = question?.['acceptedAnswer'] as JsonLdItem | undefined
    return !question || !question['name'] || !answer || !answer['text']
  })
  return bad.length ? [{ severity: 'warning', message: `${bad.length} FAQPage questions lack a name or an acceptedAnswer text` }] : []
}

export const aeoRules: Rule[] = [
  {
    id: 'aeo.structured_data',
    axis: 'aeo',
    weight: 8,
    effort: 'medium',
    fix: 'Add schema.org JSON-LD (Organization and WebSite at least)',
    page: (page) => {
      if (page.json_ld.length === 0) return [{ severity: 'warning', message: 'The page has no schema.org JSON-LD' }]
      const problems: Problem[] = []
      for (const doc of page.json_ld)
        if (!doc.valid) problems.push({ severity: 'warning', message: 'A JSON-LD block is not valid JSON', evidence: doc.error })
      for (const item of items(page)) {
        for (const raw of typesOf(item)) {
          const type = canonicalType(raw)
          if (!type) continue
          const missing = (REQUIRED[type] ?? []).filter((p) => item[p] === undefined || item[p] === '')
          if (missing.length)
            problems.push({ severity: 'warning', message: `The ${raw} markup lacks ${missing.join(', ')}`, evidence: raw })
          if (type === 'FAQPage') problems.push(...faqProblems(item))
        }
      }
      return problems
    },
  },
  {
    id: 'aeo.entity_markup',
    axis: 'aeo',
    weight: 5,
    effort: 'low',
    fix: 'Describe the business with Organization (or LocalBusiness) and WebSite markup on the home page',
    site: (site) => {
      const home = site.pages[0]!
      const types = new Set(
        items(home)
          .flatMap(typesOf)
          .map((t) => canonicalType(t) ?? t),
      )
      const missing: string[] = []
      if (!types.has('Organization') && !types.has('LocalBusiness')) missing.push('Organization or LocalBusiness')
      if (!types.has('WebSite')) missing.push('WebSite')
      return missing.length
        ? {
            problems: [
              {
                severity: 'warning',
                message: `The home page markup lacks ${missing.join(' and ')}`,
                evidence: [...types].join(', ') || 'no types',
                page: home.url,
              },
            ],
            credit: missing.length === 2 ? 0 : 0.5,
          }
        : { problems: [] }
    },
  },
  {
    id: 'aeo.faq_markup',
    axis: 'aeo',
    weight: 2,
    effort: 'low',
    fix: 'Mark question-and-answer sections up as FAQPage',
    page: (page) => {
      if (page.questions.length < 2) return null
      const hasFaq = items(page).some((item) => typesOf(item).includes('FAQPage'))
      return hasFaq ? [] : [{ severity: 'notice', message: `The page answers ${page.questions.length} questions without FAQPage markup` }]
    },
  },
  {
    id: 'aeo.question_headings',
    axis: 'aeo',
    weight: 4,
    effort: 'medium',
    fix: 'Phrase some headings as the questions visitors ask',
    site: (site) =>
      site.pages.some((p) => p.questions.length > 0)
        ? { problems: [] }
        : { problems: [{ severity: 'notice', message: 'No heading is phrased as a question' }] },
  },
  {
    id: 'aeo.direct_answers',
    axis: 'aeo',
    weight: 5,
    effort: 'medium',
    fix: `Answer each question heading in the first paragraph below it, in ${ANSWER_WORDS.min}–${ANSWER_WORDS.max} words`,
    page: (page) => {
      if (page.questions.length === 0) return null
      const problems: Problem[] = []
      for (const q of page.questions) {
        const n = q.answer ? countWords(q.answer) : 0
        if (n < ANSWER_WORDS.min || n > ANSWER_WORDS.max) {
          problems.push({
            severity: 'notice',
            message:
              n === 0
                ? 'A question heading has no paragraph answering it'
                : `A question is answered in ${n} words; a direct answer takes ${ANSWER_WORDS.min}–${ANSWER_WORDS.max}`,
            evidence: clip(q.heading, 100),
          })
        }
      }
      return problems
    },
  },
  {
    id: 'aeo.concise_paragraphs',
    axis: 'aeo',
    weight: 3,
    effort: 'medium',
    fix: `Split paragraphs longer than ${LONG_PARAGRAPH} words`,
    page: (page) => {
      const long = page.paragraphs.filter((p) => countWords(p) > LONG_PARAGRAPH)
      return long.length
        ? [
            {
              severity: 'notice',
              message: `${long.length} paragraphs are longer than ${LONG_PARAGRAPH} words`,
              evidence: clip(long[0], 80),
            },
          ]
        : []
    },
  },
  {
    id: 'aeo.author_date',
    axis: 'aeo',
    weight: 3,
    effort: 'low',
    fix: 'Mark up author and publication date on articles',
    page: (page) => {
      const isArticle = items(page).some((item) => typesOf(item).some((t) => ARTICLE_LIKE.test(t))) || page.meta['og:type'] === 'article'
      if (!isArticle) return null
      const missing = [page.has_author_markup ? '' : 'author', page.has_date_markup ? '' : 'date'].filter(Boolean)
      return missing.length ? [{ severity: 'warning', message: `The article has no ${missing.join(' or ')} markup` }] : []
    },
  },
  {
    id: 'aeo.contact_about',
    axis: 'aeo',
    weight: 4,
    effort: 'low',
    fix: 'Link contact and about pages from the home page',
    site: (site) => {
      const links = site.pages.flatMap((p) => p.link_texts)
      const has = (pattern: RegExp) => links.some((l) => pattern.test(new URL(l.href).pathname) || pattern.test(l.text))
      const missing: string[] = []
      if (!has(/contact|kontakt|impressum/i)) missing.push('contact')
      if (!has(/about|ueber-uns|uber-uns|über uns|a-propos|qui-sommes-nous|team/i)) missing.push('about')
      return missing.length
        ? {
            problems: [{ severity: 'notice', message: `No link to ${missing.join(' or ')} page was found` }],
            credit: missing.length === 2 ? 0 : 0.5,
          }
        : { problems: [] }
    },
  },
]
