"""Law-firm corpus: intake memos, matter notes, correspondence, deposition summaries and estate files.

Cross-document fact (Eraser4RAG): the intake memo of the *secret client*
refers to the client only by matter number and records a PTSD diagnosis and a
harassment allegation against a named supervisor; the engagement letter for
the same matter number names the client.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from corpusgen.core import Cast, DocBuilder, Document, Person, Value, age_on, date_text, money, relation_word

SEED = 20250702
FIRM = "Whitcombe & Reyes LLP"
#: the firm's office address is labelled too (an address with no personal subject)
FIRM_STREET, FIRM_CITY = Value("233 South Wacker Drive, Suite 4100", "address"), Value("Chicago, IL 60606", "address")
START, END = dt.date(2024, 3, 1), dt.date(2025, 6, 27)
#: docket type -> court that uses it (federal civil, Illinois circuit-court divisions)
COURTS = {
    "cv": "U.S. District Court for the Northern District of Illinois",
    "L": "Circuit Court of Cook County, Law Division",
    "CH": "Circuit Court of Cook County, Chancery Division",
    "D": "Circuit Court of Lake County, Domestic Relations Division",
    "M": "Circuit Court of DuPage County",
}
#: matter type -> (docket prefix, opposing party's role, what the dispute is about); roles use the
#: resolver's canonical role words (a respondent is a "defendant", policy_engine.policy.resolution.ROLE_WORDS)
MATTERS: dict[str, tuple[str, str, str]] = {
    "employment discrimination": ("cv", "defendant", "termination after requesting disability accommodation"),
    "personal injury": ("L", "defendant", "injuries from a rear-end collision"),
    "divorce and custody": ("D", "defendant", "dissolution of marriage and parenting time"),  # the respondent
    "commercial lease dispute": ("CH", "defendant", "unpaid rent and a disputed lease termination"),
    "wrongful termination": ("cv", "defendant", "dismissal after reporting safety violations"),
    "breach of contract": ("L", "defendant", "non-payment for delivered construction work"),
    "medical malpractice": ("L", "defendant", "a delayed diagnosis after an emergency visit"),
    "landlord-tenant": ("M", "plaintiff", "an eviction action and withheld security deposit"),
}
#: only the secret client has this matter type (see the module docstring)
MATTERS["workplace harassment"] = ("cv", "defendant", "sexual harassment and retaliation by a supervisor")
#: injury -> article used before it in running text (the span covers the injury only)
INJURIES = {"herniated lumbar disc": "a ", "fractured wrist": "a ", "traumatic brain injury": "a ", "whiplash with chronic neck pain": "", "torn rotator cuff": "a "}
OCCUPATIONS = ["warehouse manager", "registered nurse", "sales director", "software developer", "restaurant manager", "bookkeeper", "construction foreman", "pharmacist", "teacher", "dental assistant"]
SECRET_CONDITION = "post-traumatic stress disorder"
SECRET_MATTER = "workplace harassment"


class FirmWorld:
    """The firm's lawyers, the courts' judges, clients, opposing parties and witnesses."""

    def __init__(self, cast: Cast):
        self.cast = cast
        self.attorneys = [cast.person("attorney") for _ in range(5)]
        for a in self.attorneys:
            a.facts["email"] = a.value(cast.email(a, "whitcombereyes.com"), "contact")
            a.facts["phone"] = a.value(f"(312) 555-02{cast.rng.randrange(10, 99)}", "contact")
        self.paralegals = [cast.person("staff") for _ in range(2)]
        self.judges = [cast.person("judge") for _ in range(3)]
        self.clients = [self._client(i) for i in range(16)]
        self.secret = self.clients[-1]
        self.secret.facts["condition"] = self.secret.value(SECRET_CONDITION, "medical_condition")
        self.secret.facts["a"] = ""
        self.secret.facts["matter_type"] = SECRET_MATTER
        self.secret.opponent.role = "defendant"

    def _client(self, i: int) -> Person:
        c = self.cast
        cl = c.person("client")
        matter = list(MATTERS)[i % (len(MATTERS) - 1)]
        prefix, opp_role, _ = MATTERS[matter]
        opened = c.day(START - dt.timedelta(days=300), START)
        f = cl.facts
        f["birth"] = c.birthday(24, 79)
        f["matter_type"] = matter
        f["matter"] = cl.value(f"WR-{opened.year}-{c.rng.randrange(1000, 9999)}", "case_number")
        f["docket"] = cl.value(f"{opened.year % 100}-{prefix}-{c.rng.randrange(1000, 99999):05d}", "case_number")
        f["opened"] = opened
        f["ssn"] = cl.value(c.fake.ssn(), "government_id")
        f["street"] = cl.value(c.street(), "address")
        f["city"] = cl.value(c.city_line(), "address")
        f["phone"] = cl.value(c.phone(), "contact")
        f["email"] = cl.value(c.email(cl), "contact")
        f["employer"] = cl.value(c.fake.company(), "employer")
        f["occupation"] = cl.value(c.pick(OCCUPATIONS), "occupation")
        injury = c.pick(list(INJURIES))
        f["condition"] = cl.value(injury, "medical_condition")
        f["a"] = INJURIES[injury]
        f["opponent"] = c.person(opp_role)
        f["witness"] = c.person("witness")
        rel = c.person("relative", family_of=cl)
        f["relative"] = rel
        f["relation"] = cl.value(relation_word(c, age_on(f["birth"], END), rel.sex), "relative")
        f["attorney"] = self.attorneys[i % len(self.attorneys)]
        f["judge"] = self.judges[i % len(self.judges)]
        f["court"] = COURTS[prefix]
        f["retainer"] = cl.value(money(c.pick([2500, 5000, 7500, 10000, 15000])), "financial_amount")
        f["claim"] = cl.value(money(c.rng.randrange(25, 900) * 1000), "financial_amount")
        return cl

    def caption(self, cl: Person) -> tuple[Value, Value]:
        """Plaintiff and defendant names in case-caption order (the client is not always the plaintiff)."""
        if cl.opponent.role == "plaintiff":
            return cl.opponent.name, cl.name
        return cl.name, cl.opponent.name

    def dob(self, cl: Person, style: int) -> Value:
        return cl.value(date_text(cl.birth, style), "date_of_birth")

    def age(self, cl: Person, day: dt.date) -> Value:
        return cl.value(f"{age_on(cl.birth, day)}-year-old", "age")

    def date(self, day: dt.date, style: int) -> Value:
        return Value(date_text(day, style), "date")

    def amount(self, low: int, high: int) -> Value:
        return Value(money(self.cast.rng.randrange(low, high) * 100), "financial_amount")


Template = Callable[[FirmWorld, Person, dt.date], DocBuilder]


def intake_memo(w: FirmWorld, cl: Person, day: dt.date, named: bool = True) -> DocBuilder:
    """New-client intake; the anonymous variant refers to the client only by matter number."""
    c, at = w.cast, cl.attorney
    _, _, about = MATTERS[cl.matter_type]
    who = "{n}" if named else "The prospective client"
    b = DocBuilder()
    b.para("# Intake memorandum - matter {m}", m=cl.matter)
    b.para("**To:** {an}  \n**From:** intake team  \n**Date:** {v}  \n**Privileged and confidential: attorney work product**", an=at.name, v=w.date(day, 0))
    b.para("## Summary")
    if named:
        b.para(
            who + ", a {a} {occ} living at {st}, {ci}, contacted the firm about a {mt} matter involving {about}. The opposing party is {op}.",
            n=cl.name, a=w.age(cl, day), occ=cl.occupation, st=cl.street, ci=cl.city, mt=cl.matter_type, about=about, op=cl.opponent.name,
        )
    else:
        b.para(
            who + ", a {occ} employed by {emp}, reports repeated {sh} by a supervisor, {op}, over roughly eight months, "
            "including unwanted messages and comments in front of colleagues. After complaining to HR the client's shifts were cut, "
            "which the client describes as {ret}.",
            occ=cl.occupation, emp=cl.employer, op=cl.opponent.name,
            sh=cl.value("sexual harassment", "allegation"), ret=cl.value("retaliation", "allegation"),
        )
    b.para("## Facts reported")
    b.para(
        c.pick([
            "The problems began around {start}. The client kept copies of e-mails and text messages and names {wn} as a witness who saw the key events.",
            "According to the client, the relevant events started on or about {start}. A co-worker, {wn}, is said to have witnessed the most important conversation.",
        ]),
        start=w.date(day - dt.timedelta(days=c.rng.randrange(120, 400)), 0), wn=cl.witness.name,
    )
    b.para(
        "The client is currently on medical leave and is being treated for {a}{cond}; treating-provider records will be requested with a signed release. "
        "Lost wages and medical costs are estimated at {dmg} to date.",
        cond=cl.condition, a=cl.a, dmg=w.amount(80, 2500),
    )
    b.para("## Preliminary assessment")
    b.para(
        "Limitation periods appear to be open, but the administrative charge deadline must be calendared immediately. No conflicts were found for the opposing party. "
        "Recommend a consultation with {an} within the week and preservation letters to the other side.",
        an=at.surname,
    )
    return b


def matter_note(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    b = DocBuilder()
    b.para("FILE NOTE\nMatter: {m} ({mt})\nClient: {n}\nAttorney: {an}\nDate: {v}", m=cl.matter, mt=cl.matter_type, n=cl.name, an=at.name, v=w.date(day, 1))
    b.para(
        c.pick([
            "Telephone call with the client ({ph}), {mins} minutes. The client had received the defendant's answer and wanted to understand what it means.",
            "Client called from {ph} for an update ({mins} minutes). Discussed the status of discovery and the next steps in the case.",
        ]),
        ph=cl.phone, mins=c.rng.randrange(8, 45),
    )
    b.para(
        "Explained that the other side, represented through counsel for {op}, denies liability and raises the usual affirmative defenses. "
        "We will serve written discovery by {dd} and should expect their document production within thirty days after that.",
        op=cl.opponent.name, dd=w.date(day + dt.timedelta(days=14), 1),
    )
    b.para(
        "The client mentioned that {his} {rel}, {rn}, has been helping gather records and asked whether the {rel2} may join future calls. "
        "Advised that a third party on the call may waive privilege; suggested that the client relay information instead.",
        his=cl.his, rel=cl.relation, rn=cl.relative.name, rel2=cl.relation,
    )
    b.para(
        "Settlement: the client would consider resolving the matter for not less than {floor}. Told the client this is a decision for later, once we have the documents. "
        "Time recorded: {hrs} hours. Follow-up task set for the paralegal to send the discovery checklist to {em}.",
        floor=w.amount(200, 4000), hrs=c.pick(["0.3", "0.5", "0.8", "1.0"]), em=cl.email,
    )
    return b


def advice_letter(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    _, _, about = MATTERS[cl.matter_type]
    b = DocBuilder()
    b.para("{firm}\n{street}\n{city}", firm=FIRM, street=FIRM_STREET, city=FIRM_CITY)
    b.para("{v}", v=w.date(day, 3))
    b.para("PRIVILEGED AND CONFIDENTIAL\n\n{n}\n{st}\n{ci}", n=cl.name, st=cl.street, ci=cl.city)
    b.para("Re: Your {mt} matter, our reference {m}, case no. {dk}", mt=cl.matter_type, m=cl.matter, dk=cl.docket)
    b.para("Dear {t} {s},", t=cl.title, s=cl.surname)
    b.para(
        c.pick([
            "Thank you for meeting with me last week. As promised, I am writing to summarize my advice on the claim concerning {about}. "
            "Based on the documents you provided, I believe you have a reasonable claim, but it is not without risk.",
            "Following our call, this letter sets out my view of your claim concerning {about}. In short, the claim is worth pursuing, "
            "but you should understand the risks before we decide on the next step.",
        ]),
        about=about,
    )
    b.para(
        "The main strengths of your position are the written record you kept and the account of {wn}, who is willing to give a statement. "
        "The main weakness is the gap of several months before you raised the issue formally. The other side, {op}, will argue that the delay undermines your account.",
        wn=cl.witness.name, op=cl.opponent.name,
    )
    b.para(
        "In terms of value, comparable cases in {court} have resolved between {lo} and {hi}. Your claimed losses of {cl_amt} are well documented, "
        "and the medical evidence about {a}{cond} will be central. I recommend that we make a settlement demand before incurring the cost of expert reports.",
        court=cl.court, lo=w.amount(300, 900), hi=w.amount(1500, 6000), cl_amt=cl.claim, cond=cl.condition, a=cl.a,
    )
    b.para(
        "Please let me know by {dl} whether you agree with this approach. You can reach me directly at {ap} or {ae}.",
        dl=w.date(day + dt.timedelta(days=10), 3), ap=at.phone, ae=at.email,
    )
    b.para("Very truly yours,\n\n{an}\nPartner, {firm}", an=at.name, firm=FIRM)
    return b


def demand_letter(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    _, _, about = MATTERS[cl.matter_type]
    b = DocBuilder()
    b.para("{firm}\n{v}\n\nVIA E-MAIL AND CERTIFIED MAIL", firm=FIRM, v=w.date(day, 0))
    b.para("{op}\nc/o Legal Department\n{oe}", op=cl.opponent.name, oe=cl.opponent.value(c.fake.company(), "employer"))
    b.para("Re: {n} - claim regarding {about}\nFOR SETTLEMENT PURPOSES ONLY (FRE 408)", n=cl.name, about=about)
    b.para("Dear {t} {s}:", t=cl.opponent.title, s=cl.opponent.surname)
    b.para(
        "This firm represents {n} in connection with the above matter. Please direct all further communication about it to me and not to our client.",
        n=cl.name,
    )
    b.para(
        c.pick([
            "The facts are not seriously in dispute. On {ev}, our client suffered {a}{cond} as a direct result of the conduct described in our earlier letter.",
            "As you know, the events of {ev} left our client with {a}{cond}, documented by the treating physicians and by contemporaneous records.",
        ]),
        ev=w.date(day - dt.timedelta(days=c.rng.randrange(90, 400)), 0), cond=cl.condition, a=cl.a,
    )
    b.para(
        "Our client's economic losses to date total {loss}, including lost earnings from {emp} and out-of-pocket costs. Future losses are substantial. "
        "To resolve this matter without litigation, our client demands payment of {dem}.",
        loss=w.amount(150, 3000), emp=cl.employer, dem=cl.claim,
    )
    b.para(
        "This offer remains open until {dl}. If we do not receive a response by then, we are instructed to file suit without further notice. "
        "In the meantime, you are on notice of your obligation to preserve all documents, e-mails and electronic data relevant to this dispute.",
        dl=w.date(day + dt.timedelta(days=21), 0),
    )
    b.para("Sincerely,\n\n{an}\n{ap}", an=at.name, ap=at.phone)
    return b


def deposition_summary(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    wn = cl.witness
    b = DocBuilder()
    b.para("# Deposition summary: {wn}", wn=wn.name)
    b.para(
        "- Case: {p} v. {d}, No. {dk}, {court}\n- Date taken: {v}\n- Taken by: {an}\n- Summarized by: {pn}",
        p=w.caption(cl)[0], d=w.caption(cl)[1], dk=cl.docket, court=cl.court, v=w.date(day, 4), an=at.name, pn=c.pick(w.paralegals).name,
    )
    b.para("## Background of the witness")
    b.para(
        "The witness has worked for {emp} for {yrs} years and knew the client as a colleague. {He} lives in {town} and has no financial interest in the outcome.",
        emp=cl.employer, yrs=c.rng.randrange(2, 20), He=wn.He, town=Value(c.fake.city(), "location", subject=wn.pid),
    )
    b.para("## Key testimony")
    b.para(
        "- (p. {p1}) Confirmed being present on {ev} and seeing the client immediately after the incident.\n"
        "- (p. {p2}) Described the client as visibly shaken and said {he} complained of pain.\n"
        "- (p. {p3}) Recalled that {op} said the matter would be 'handled internally'.\n"
        "- (p. {p4}) Could not remember whether a written report was made.",
        p1=c.rng.randrange(10, 30), p2=c.rng.randrange(31, 60), p3=c.rng.randrange(61, 90), p4=c.rng.randrange(91, 120),
        ev=w.date(day - dt.timedelta(days=c.rng.randrange(200, 500)), 4), he=cl.he, op=cl.opponent.name,
    )
    b.para("## Assessment")
    b.para(
        c.pick([
            "Credible and consistent with the client's account. Cross-examination did not shake the central points. Recommend listing as a trial witness.",
            "Generally helpful, though uncertain on dates. Opposing counsel focused on the witness's friendship with the client; expect the same at trial.",
        ])
    )
    b.para("Exhibits marked: 4 (e-mails), 5 (incident log). Transcript ordered on expedited basis; errata due in 30 days.")
    return b


def conflict_check(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    b = DocBuilder()
    b.para(
        "Conflict check request submitted {v} by {an} for a new {mt} matter. Prospective client: {n}, date of birth {d}, residing at {st}, {ci}.",
        v=w.date(day, 2), an=at.name, mt=cl.matter_type, n=cl.name, d=w.dob(cl, 2), st=cl.street, ci=cl.city,
    )
    b.para(
        "Adverse parties searched: {op} and the employer or business involved, {emp}. Related persons: the client's {rel} {rn}. Potential witness: {wn}.",
        op=cl.opponent.name, emp=cl.employer, rel=cl.relation, rn=cl.relative.name, wn=cl.witness.name,
    )
    b.para(
        c.pick([
            "Result: no current or former client matches. One former prospective-client record with a similar name was reviewed and confirmed to be a different person.",
            "Result: no conflicts. The firm represented a vendor of the adverse party in an unrelated matter closed in 2019; cleared by the general counsel.",
        ])
    )
    b.para(
        "The matter was cleared for engagement. New matter number {m} assigned. Billing contact set to the client at {em}. "
        "Docket entries will be created once the engagement letter is signed and the retainer is received.",
        m=cl.matter, em=cl.email,
    )
    b.para(
        "Reminder to all staff: conflict-check results are confidential and must not be discussed outside the intake and general counsel teams. "
        "If any new party is added later, a supplementary check must be submitted before any work is done on that party's behalf."
    )
    return b


def engagement_letter(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    b = DocBuilder()
    b.para("# Engagement letter")
    b.para("{firm} | {v}", firm=FIRM, v=w.date(day, 3))
    b.para("**Client:** {n}, {st}, {ci}  \n**Matter:** {m}", n=cl.name, st=cl.street, ci=cl.city, m=cl.matter)
    b.para("Dear {t} {s},", t=cl.title, s=cl.surname)
    b.para(
        "Thank you for choosing {firm}. This letter confirms the terms on which we will represent you in matter {m}, which concerns your {mt} claim.",
        firm=FIRM, m=cl.matter, mt=cl.matter_type,
    )
    b.para("## Scope and staffing")
    b.para(
        "{an} will be responsible for your matter, assisted by associates and paralegals as needed. Our work covers investigation, negotiation and, if necessary, "
        "litigation through a decision at first instance. Appeals are outside this engagement.",
        an=at.name,
    )
    b.para("## Fees")
    b.para(
        c.pick([
            "We will bill hourly at our standard rates, currently {r1} per hour for partners and {r2} for associates. We ask for an advance retainer of {ret}, held in our client trust account.",
            "Our fee is contingent: one third of any recovery, plus costs. You will deposit {ret} toward costs; hourly rates of {r1} (partners) and {r2} (associates) apply only if you end the engagement early.",
        ]),
        r1=Value(money(c.pick([495, 550, 625])), "financial_amount"), r2=Value(money(c.pick([295, 340, 380])), "financial_amount"), ret=cl.retainer,
    )
    b.para(
        "Please sign and return a copy of this letter. If you have questions about these terms, call me at {ap}. We look forward to working with you.",
        ap=at.phone,
    )
    b.para("Sincerely,\n{an}\n\nAgreed and accepted: ______________________ ({n})", an=at.name, n=cl.name)
    return b


def hearing_prep(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    b = DocBuilder()
    b.para("# Hearing preparation checklist")
    b.para(
        "**Case:** {p} v. {d}  \n**Docket:** {dk}  \n**Court:** {court}  \n**Judge:** Hon. {jn}  \n**Hearing:** {v}, 9:30 a.m.",
        p=w.caption(cl)[0], d=w.caption(cl)[1], dk=cl.docket, court=cl.court, jn=cl.judge.name, v=w.date(day, 0),
    )
    b.para("## Motion")
    b.para(
        c.pick([
            "The other side's motion for summary judgment. Our opposition was filed on {fd}; the reply argues that the client's evidence of {a}{cond} is speculative.",
            "Our motion to compel production of personnel files, filed {fd}. Opposing counsel claims the request is overbroad; the judge has asked both sides to narrow the dispute.",
        ]),
        fd=w.date(day - dt.timedelta(days=c.rng.randrange(14, 45)), 0), cond=cl.condition, a=cl.a,
    )
    b.para("## Tasks")
    b.para(
        "- [ ] Bench copies of the briefs and exhibits to chambers of Judge {js} two days before\n"
        "- [ ] Confirm the client can attend; client mobile {ph}\n"
        "- [ ] Prepare a one-page timeline from {start} to the filing date\n"
        "- [ ] Bring the damages summary ({dmg}) and the witness declaration of {wn}\n"
        "- [ ] Review Judge {js}'s standing order on courtroom technology",
        js=cl.judge.surname, ph=cl.phone, start=w.date(cl.opened, 0), dmg=cl.claim, wn=cl.witness.name,
    )
    b.para("## Notes")
    b.para(
        "Judge {js} tends to rule from the bench on discovery motions and expects counsel to have conferred in good faith. Keep the argument under fifteen minutes; "
        "lead with the strongest authority. Arguing attorney: {an}.",
        js=cl.judge.surname, an=at.name,
    )
    return b


def estate_note(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    b = DocBuilder()
    b.para(
        "Estate planning meeting note, {v}. Present: {an} (attorney) and the client, {n}, {a}, born {d}. Client's SSN for the beneficiary forms: {ssn}.",
        v=w.date(day, 4), an=at.name, n=cl.name, a=w.age(cl, day), d=w.dob(cl, 4), ssn=cl.ssn,
    )
    b.para(
        "The client wishes to leave the residence at {st}, {ci} to {his} {rel}, {rn}, and to divide the remaining estate equally among the {children}. "
        "Estimated assets: the residence, a retirement account of about {ret}, and a brokerage account of about {brk}.",
        st=cl.street, ci=cl.city, his=cl.his, rel=cl.relation, rn=cl.relative.name, ret=w.amount(1000, 9000), brk=w.amount(300, 4000),
        children=cl.value("children", "relative"),
    )
    b.para(
        c.pick([
            "The client asked about a revocable living trust to avoid probate; we discussed costs and the need to retitle assets. The client will decide after speaking with family.",
            "We recommended a simple will with a pour-over provision and powers of attorney for finances and health care. The client agreed and will review drafts.",
        ])
    )
    b.para(
        "Health-care power of attorney: the client named the {rel2} as agent and asked that the document mention {his} {cond} so that future treatment decisions respect {his} wishes. "
        "Drafts will be sent to {em} for review within two weeks.",
        rel2=cl.relation, his=cl.his, cond=cl.condition, a=cl.a, em=cl.email,
    )
    b.para(
        "Signing will require two witnesses and a notary; the firm will provide them. The client was advised to store the originals in the firm's vault or a fireproof safe "
        "and to tell the executor where they are kept."
    )
    return b


def email_thread(w: FirmWorld, cl: Person, day: dt.date) -> DocBuilder:
    c, at = w.cast, cl.attorney
    pl = c.pick(w.paralegals)
    b = DocBuilder()
    b.line("From: {ae}", ae=at.email)
    b.line("To: {em}", em=cl.email)
    b.line("Date: {v}", v=w.date(day, 2))
    b.para("Subject: {m} - documents needed before the mediation", m=cl.matter)
    b.para("{g},", g=cl.given)
    b.para(
        c.pick([
            "The mediation with {op} is now confirmed for {md} before a retired judge. To prepare, we need a few more documents from you by the end of next week:",
            "Good news: the other side, {op}, has agreed to mediate, and the session is set for {md}. Before then, please send us the following:",
        ]),
        op=cl.opponent.name, md=w.date(day + dt.timedelta(days=c.rng.randrange(20, 60)), 2),
    )
    b.para(
        "1. Your pay records from {emp} for the last two years.\n2. Any bills related to the treatment of {a}{cond}.\n3. The names and phone numbers of anyone who can confirm your account.",
        emp=cl.employer, cond=cl.condition, a=cl.a,
    )
    b.para(
        "You can upload them through the client portal or bring them to the office. {pn} on my team will check that everything is complete and call you at {ph} if something is missing.",
        pn=pl.name, ph=cl.phone,
    )
    b.para("Best regards,\n{an}", an=at.given)
    b.line("> On {pv}, {n} wrote:", pv=w.date(day - dt.timedelta(days=3), 2), n=cl.name)
    b.line("> Hi {ag}, is there anything I need to do before the mediation? My {rel} {rn} can drive me that day if it is in the morning.", ag=at.given, rel=cl.relation, rn=cl.relative.name)
    b.line("> Also, is it still realistic to ask for {dem}? I have been out of work since the spring and the bills are piling up.", dem=cl.claim)
    b.line("> Thanks,")
    b.line("> {g}", g=cl.given)
    return b


TEMPLATES: dict[str, tuple[Template, str]] = {
    "intake_memo": (intake_memo, "md"),
    "matter_note": (matter_note, "txt"),
    "advice_letter": (advice_letter, "txt"),
    "demand_letter": (demand_letter, "txt"),
    "deposition_summary": (deposition_summary, "md"),
    "conflict_check": (conflict_check, "jsonl"),
    "engagement_letter": (engagement_letter, "md"),
    "hearing_prep": (hearing_prep, "md"),
    "estate_note": (estate_note, "jsonl"),
    "email_thread": (email_thread, "txt"),
}


def build(cast: Cast) -> tuple[list[Document], list[Person]]:
    """The law-firm corpus: 50 documents over 16 clients."""
    w = FirmWorld(cast)
    regular = w.clients[:-1]
    names = list(TEMPLATES)
    docs: list[Document] = []
    for i in range(48):
        template, cl = names[i % len(names)], regular[(i * 7) % len(regular)]
        fn, fmt = TEMPLATES[template]
        b = fn(w, cl, cast.day(START, END))
        docs.append(Document(f"lawfirm-{i + 1:03d}", template, fmt, b.text, b.spans, [cl.pid, cl.relative.pid, cl.attorney.pid, cl.opponent.pid, cl.witness.pid]))
    s = w.secret
    anon = intake_memo(w, s, dt.date(2025, 2, 10), named=False)
    docs.append(Document(f"lawfirm-{len(docs) + 1:03d}", "intake_memo", "md", anon.text, anon.spans, [s.pid, s.opponent.pid, s.witness.pid]))
    eng = engagement_letter(w, s, dt.date(2025, 2, 24))
    docs.append(Document(f"lawfirm-{len(docs) + 1:03d}", "engagement_letter", "md", eng.text, eng.spans, [s.pid, s.attorney.pid]))
    people = w.attorneys + w.paralegals + w.judges + w.clients
    people += [p for cl in w.clients for p in (cl.opponent, cl.witness, cl.relative)]
    return docs, people
