"""Bank corpus: customer-service chats and call logs, account notes, disputes, loan and wire records.

Cross-document fact (Eraser4RAG): the collections hardship note of the
*secret customer* identifies the customer only by account number and records
a Chapter 7 bankruptcy filing; the account-maintenance record ties that
account number to the customer's name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from faker import Faker

from corpusgen.core import Cast, DocBuilder, Document, Person, Value, age_on, date_text, money, relation_word
from corpusgen.identifiers import aba_valid, group, iban_valid, luhn_valid

SEED = 20250701
BANK = "Harborview Savings Bank"
START, END = dt.date(2024, 2, 1), dt.date(2025, 6, 27)
OCCUPATIONS = ["registered nurse", "truck driver", "dental hygienist", "civil engineer", "restaurant owner", "high school teacher", "paralegal", "freelance photographer", "retired postal worker", "IT consultant", "pharmacy technician", "contractor"]
MERCHANTS = ["Amazon Marketplace", "Shell Oil 5521", "Target T-1893", "Uber Trip", "Walgreens #0431", "Delta Air Lines", "Best Buy 00612", "Costco Whse #118", "Apple.com/bill", "DoorDash"]
IBAN_LOCALES = ["de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT", "en_GB"]
SECRET_FACT = "Chapter 7 bankruptcy"


class BankWorld:
    """The bank's staff and customers, with the accounts and facts documents mention."""

    def __init__(self, cast: Cast):
        self.cast = cast
        self.staff = [cast.person("staff") for _ in range(6)]
        for s in self.staff:
            s.facts["ext"] = s.value(f"ext. {cast.rng.randrange(2000, 2999)}", "contact")
        self.routing = self._routing()
        self.customers = [self._customer() for _ in range(18)]
        self.secret = self.customers[-1]

    def _routing(self) -> str:
        number = self.cast.fake.aba()
        assert aba_valid(number), number
        return number

    def _iban(self) -> str:
        fake = Faker(self.cast.pick(IBAN_LOCALES))
        fake.seed_instance(self.cast.rng.randrange(1 << 30))
        iban = group(fake.iban())
        assert iban_valid(iban), iban
        return iban

    def _customer(self) -> Person:
        c = self.cast
        cu = c.person("customer")
        rel = c.person("relative", family_of=cu if c.rng.random() < 0.6 else None)
        birth = c.birthday(23, 71)
        card = group(c.fake.credit_card_number(card_type=c.pick(["visa16", "mastercard"])))
        assert luhn_valid(card), card
        f = cu.facts
        f["birth"] = birth
        f["ssn"] = cu.value(c.fake.ssn(), "government_id")
        f["account"] = cu.value(f"{c.rng.randrange(10**9, 10**10)}", "financial_account")
        f["savings"] = cu.value(f"{c.rng.randrange(10**11, 10**12)}", "financial_account")
        f["routing"] = cu.value(self.routing, "financial_account")
        f["card"] = cu.value(card, "financial_account")
        f["card_last4"] = cu.value(card[-4:], "financial_account")
        f["iban"] = rel.value(self._iban(), "financial_account")
        f["street"] = cu.value(c.street(), "address")
        f["city"] = cu.value(c.city_line(), "address")
        f["phone"] = cu.value(c.phone(), "contact")
        f["email"] = cu.value(c.email(cu), "contact")
        f["employer"] = cu.value(c.fake.company(), "employer")
        f["occupation"] = cu.value(c.pick(OCCUPATIONS), "occupation")
        f["salary"] = cu.value(money(c.rng.randrange(38, 190) * 1000), "financial_amount")
        f["balance"] = cu.value(money(c.rng.randrange(150, 90000) + c.rng.randrange(100) / 100), "financial_amount")
        f["relative"] = rel
        f["relation"] = cu.value(relation_word(c, age_on(birth, END), rel.sex), "relative")
        f["agent"] = c.pick(self.staff)
        return cu

    def dob(self, cu: Person, style: int) -> Value:
        return cu.value(date_text(cu.birth, style), "date_of_birth")

    def age(self, cu: Person, day: dt.date) -> Value:
        return cu.value(f"{age_on(cu.birth, day)}", "age")

    def date(self, day: dt.date, style: int) -> Value:
        return Value(date_text(day, style), "date")

    def amount(self, low: int, high: int) -> Value:
        return Value(money(self.cast.rng.randrange(low * 100, high * 100) / 100), "financial_amount")


Template = Callable[[BankWorld, Person, dt.date], DocBuilder]


def chat_transcript(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    hour, minute = c.rng.randrange(9, 20), c.rng.randrange(60)
    b = DocBuilder()
    b.para("{bank} secure chat transcript, {v}, session started {hh:02d}:{mm:02d}", bank=BANK, v=w.date(day, 0), hh=hour, mm=minute)
    greeting = "Good morning" if hour < 12 else "Good afternoon" if hour < 17 else "Good evening"
    b.line("[Agent {an}] " + greeting + ", thanks for contacting {bank}. How can I help today?", an=ag.given, bank=BANK)
    b.line("[Customer] hi, this is {n}. there's a charge on my card I don't recognize", n=cu.name)
    b.line("[Agent {an}] I'm sorry to hear that. For verification, could you confirm your date of birth and the e-mail on the account?", an=ag.given)
    b.line("[Customer] {d}, and it's {em}", d=w.dob(cu, 1), em=cu.email)
    b.line("[Agent {an}] Thank you, you're verified. Which card is this about?", an=ag.given)
    b.line("[Customer] the debit card {card}", card=cu.card)
    b.line(
        "[Agent {an}] I see a {amt} charge at {mer} from {pd}, and another of {amt2} the same evening. Do you recognize either of those?",
        an=ag.given, amt=w.amount(40, 900), mer=c.pick(MERCHANTS), pd=w.date(day - dt.timedelta(days=2), 0), amt2=w.amount(20, 400),
    )
    b.line("[Customer] no, neither. I was at work at {emp} all day and the card was in my wallet", emp=cu.employer)
    b.line(
        "[Agent {an}] Understood. I've blocked the card and opened a dispute for both transactions. A replacement will be mailed to {st}, {ci} within five business days.",
        an=ag.given, st=cu.street, ci=cu.city,
    )
    b.line("[Customer] ok. will my balance be fixed? I need that money for rent")
    b.line(
        "[Agent {an}] We issue a provisional credit within ten business days while we investigate. Your current available balance is {bal}. "
        "You'll get updates by text at {ph}.",
        an=ag.given, bal=cu.balance, ph=cu.phone,
    )
    b.line("[Customer] thanks for the help")
    b.line("[Agent {an}] You're welcome. Is there anything else I can help with today?", an=ag.given)
    b.line("[Customer] no that's all")
    b.para("[System] Chat closed by agent. Dispute reference created; transcript retained per records policy.")
    return b


def call_log(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para("CALL CENTER LOG - {bank}\nDate: {v}   Agent: {an} ({ext})   Duration: {mins} min", bank=BANK, v=w.date(day, 1), an=ag.name, ext=ag.ext, mins=c.rng.randrange(4, 26))
    b.para(
        "Inbound call from {n}, calling from {ph}. Identity verified with the last four digits of the SSN and the date of birth ({d}). "
        "Caller is {a} and has held checking account {acct} with us since {since}.",
        n=cu.name, ph=cu.phone, d=w.dob(cu, 1), a=w.age(cu, day), acct=cu.account, since=c.rng.randrange(2003, 2022),
    )
    reason = c.pick([
        "Customer asked why a direct deposit of {amt} from {emp} had not posted. Checked the ACH queue: the file arrived late from the employer's payroll provider and will post tonight.",
        "Customer requested a limit increase for a one-time purchase of {amt}. Explained daily debit limits; approved a temporary increase for 48 hours after step-up authentication.",
        "Customer reported an overdraft fee after a payroll delay at {emp}. As a courtesy the fee was reversed and a credit of {amt} applied; customer advised about low-balance alerts.",
    ])
    b.para(reason, amt=w.amount(300, 6000), emp=cu.employer)
    b.para(
        "Customer also asked about adding {his} {rel}, {rn}, as a joint owner. Explained that both parties must be present at a branch with identification, "
        "or complete the online joint-owner form. Sent the form link to {em}.",
        his=cu.his, rel=cu.relation, rn=cu.relative.name, em=cu.email,
    )
    b.para(
        "No complaints raised. Customer satisfied with the resolution. Reminded the customer that the bank will never ask for a full card number or password by phone. "
        "Call recording retained under the standard schedule; no further action required."
    )
    b.para(
        "Wrap-up code: service request resolved on first contact. Customer opted in to the post-call survey. Follow-up task created only for the joint-owner form, to be checked in ten days."
    )
    return b


def account_review(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para("# Periodic KYC review")
    b.para(
        "- **Customer:** {n}\n- **Date of birth:** {d}\n- **SSN:** {ssn}\n- **Checking:** {acct} (routing {rt})\n- **Savings:** {sav}\n- **Review date:** {v}\n- **Reviewer:** {an}",
        n=cu.name, d=w.dob(cu, 2), ssn=cu.ssn, acct=cu.account, rt=cu.routing, sav=cu.savings, v=w.date(day, 2), an=ag.name,
    )
    b.para("## Profile")
    b.para(
        "The customer works as a {occ} at {emp} and reports an annual income of {sal}. Residential address confirmed as {st}, {ci} via a recent utility bill. "
        "Expected activity: payroll deposits, card spending, and occasional transfers to {his} {rel}.",
        occ=cu.occupation, emp=cu.employer, sal=cu.salary, st=cu.street, ci=cu.city, his=cu.his, rel=cu.relation,
    )
    b.para("## Activity in the review period")
    why = c.pick(["a down payment on a car", "tuition for {his} {child}", "a home renovation", "a transfer to a brokerage account"])
    b.para(
        "Average monthly credits of {cr} are consistent with declared income. The largest single outgoing payment was {big} on {bd}, "
        "described by the customer as " + why + ". No cash structuring patterns, no high-risk jurisdictions, no adverse media found.",
        cr=w.amount(2500, 14000), big=w.amount(3000, 40000), bd=w.date(day - dt.timedelta(days=c.rng.randrange(20, 160)), 2),
        his=cu.his, child=cu.value("child", "relative"),
    )
    b.para("## Outcome")
    b.para(
        c.pick([
            "Risk rating remains low. Next periodic review in 36 months. No documents outstanding.",
            "Risk rating unchanged (standard). The customer's identification expires next year; a reminder has been scheduled.",
        ])
    )
    b.para(
        "Sources checked: core banking profile, card and ACH history for the last twelve months, sanctions and politically exposed person lists, and the "
        "customer's own statements at account opening. The review was completed within the service level and filed in the customer due diligence system."
    )
    return b


def fraud_dispute(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    claim = Value(f"DSP-{day.year}-{c.rng.randrange(10000, 99999)}", "case_number")
    b = DocBuilder()
    b.para("# Card dispute file {cl}", cl=claim)
    b.para(
        "Opened {v} by {an}. Cardholder: {n}. Card: {card}. Contact: {ph}.",
        v=w.date(day, 4), an=ag.name, n=cu.name, card=cu.card, ph=cu.phone,
    )
    b.para("## Disputed transactions")
    rows = []
    fields: dict[str, Value] = {}
    for i in range(c.rng.randrange(2, 5)):
        fields[f"a{i}"] = w.amount(15, 1200)
        fields[f"d{i}"] = w.date(day - dt.timedelta(days=c.rng.randrange(1, 20)), 4)
        rows.append(f"| {{d{i}}} | {c.pick(MERCHANTS)} | {{a{i}}} |")
    b.para("| Date | Merchant | Amount |\n|---|---|---|\n" + "\n".join(rows), **fields)
    b.para("## Investigation notes")
    b.para(
        c.pick([
            "The cardholder states the card never left {his} possession. Transactions were card-not-present and used a shipping address different from {st}. Chargeback filed under reason code 10.4.",
            "Merchant data shows the orders were shipped to an address in another state, not to the cardholder's home at {st}. Device fingerprint does not match prior logins. Chargeback submitted.",
        ]),
        his=cu.his, st=cu.street,
    )
    b.para(
        "Provisional credit of {pc} posted to checking account {acct}. The card was closed and reissued; the cardholder was advised to review recent statements and "
        "to update any merchants holding the old number. Expected resolution within 45 days under network rules.",
        pc=w.amount(100, 2500), acct=cu.account,
    )
    b.para(
        "Documents requested from the cardholder: a signed fraud affidavit and, if available, a police report number. If the merchant provides compelling evidence, "
        "the provisional credit may be reversed after notice. Status updates will be posted to online banking."
    )
    return b


def loan_note(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para("# Loan application - underwriting note")
    b.para(
        "Applicant {n} ({a} years old, born {d}) applied on {v} for a {kind} of {amt}. SSN {ssn} was used for the credit pull.",
        n=cu.name, a=w.age(cu, day), d=w.dob(cu, 3), v=w.date(day, 3), kind=c.pick(["personal loan", "home equity line", "auto loan", "30-year fixed mortgage"]),
        amt=w.amount(8000, 420000), ssn=cu.ssn,
    )
    b.para(
        "Employment: {occ} at {emp} for {yrs} years, verified by phone with HR. Stated income {sal} per year, supported by two recent pay stubs and last year's W-2. "
        "Co-applicant: none; {rel} {rn} is listed as a reference.",
        occ=cu.occupation, emp=cu.employer, yrs=c.rng.randrange(1, 19), sal=cu.salary, rel=cu.relation, rn=cu.relative.name,
    )
    b.para(
        "Debt-to-income ratio is {dti}% including the proposed payment of {pay} per month. Existing obligations: a credit card with a balance of {cc} and a student loan. "
        "Credit score {score}; no delinquencies in the last 24 months.",
        dti=c.rng.randrange(18, 44), pay=w.amount(180, 3200), cc=w.amount(200, 9000), score=c.rng.randrange(640, 812),
    )
    b.para(
        c.pick([
            "Recommendation: approve at the standard rate with automatic payment from checking account {acct}. Underwriter: {an}.",
            "Recommendation: approve with conditions (proof of homeowner's insurance). Payments to be drafted from account {acct}. Underwriter: {an}.",
            "Recommendation: counter-offer at a lower amount given the debt-to-income ratio; disbursement to account {acct}. Underwriter: {an}.",
        ]),
        acct=cu.account, an=ag.name,
    )
    b.para(
        "Collateral and documentation: appraisal or title where applicable, proof of identity, and signed disclosures. Fair-lending review completed; the decision does not "
        "rely on any prohibited basis. The applicant will receive the adverse action or approval notice by e-mail and by post, as elected at application. "
        "The file will be sent to closing once conditions are cleared."
    )
    return b


def wire_request(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para("INTERNATIONAL WIRE TRANSFER REQUEST\n{bank} - Operations", bank=BANK)
    b.line("Received: {v}", v=w.date(day, 2))
    b.line("Originator: {n}, {st}, {ci}", n=cu.name, st=cu.street, ci=cu.city)
    b.line("Debit account: {acct}  ABA {rt}", acct=cu.account, rt=cu.routing)
    b.line("Beneficiary: {rn} ({rel} of originator)", rn=cu.relative.name, rel=cu.relation)
    b.line("Beneficiary IBAN: {iban}", iban=cu.iban)
    b.para("Amount: {amt}   Purpose: {why}", amt=w.amount(500, 25000), why=c.pick(["family support", "tuition payment", "medical expenses", "gift"]))
    b.para(
        c.pick([
            "Callback verification performed by {an} to the number on file, {ph}, not to the number provided in the request. The originator confirmed the amount, "
            "the beneficiary and the purpose, and stated that no one had contacted {him} asking for the transfer.",
            "{an} called the originator back on the number on file ({ph}) before release. The originator repeated the amount and purpose unprompted "
            "and confirmed that nobody had asked {him} to send money urgently or to keep the payment secret.",
        ]),
        an=ag.name, ph=cu.phone, him=cu.him,
    )
    b.para(
        "Sanctions screening of the beneficiary name and bank returned no match. The IBAN check digits validated. Fee of {fee} charged to the originator. "
        "Funds released to the correspondent bank the same day; the originator was told the beneficiary should see the credit within one to two business days.",
        fee=Value("$45.00", "financial_amount"),
    )
    b.para(
        "Note: this is the {nth} transfer to the same beneficiary this year, consistent with the declared pattern of regular family support; no escalation to the BSA team required.",
        nth=c.pick(["second", "third", "fourth"]),
    )
    return b


def maintenance_record(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para("Account maintenance record, processed {v} by {an} at the {br} branch.", v=w.date(day, 0), an=ag.name, br=Value(c.fake.city(), "location"))
    b.para(
        "Customer {n} (date of birth {d}) requested changes to checking account {acct}. Identity verified in person with a driver's license and the SSN on file ({ssn}).",
        n=cu.name, d=w.dob(cu, 0), acct=cu.account, ssn=cu.ssn,
    )
    b.para(
        c.pick([
            "Changes made: mailing address updated to {st}, {ci}; mobile phone updated to {ph}; e-mail for statements changed to {em}. "
            "Paper statements discontinued at the customer's request.",
            "The customer has moved to {st}, {ci}. Contact details now on file: mobile {ph}, e-mail {em}. "
            "The customer switched to electronic statements only.",
        ]),
        st=cu.street, ci=cu.city, ph=cu.phone, em=cu.email,
    )
    b.para(
        "The customer named {his} {rel} {rn} as payable-on-death beneficiary of the savings account {sav}. Beneficiary details were entered as provided; "
        "no documentation is required from the beneficiary at this stage.",
        his=cu.his, rel=cu.relation, rn=cu.relative.name, sav=cu.savings,
    )
    b.para(
        "Confirmation letters were sent to both the old and the new address, as required for address changes. The customer was reminded that changes to online banking "
        "credentials must be made separately in the app. No fees apply to these changes, and the updated record was reviewed by a second staff member before release."
    )
    return b


def hardship_note(w: BankWorld, cu: Person, day: dt.date, named: bool = True) -> DocBuilder:
    """Collections note; the anonymous variant identifies the customer only by account number."""
    ag = cu.agent
    who = "{n}" if named else "The account holder"
    b = DocBuilder()
    b.para("Collections and recoveries - hardship note ({v}). Account {acct}. Handled by {an}.", v=w.date(day, 3), acct=cu.account, an=ag.name)
    b.para(
        who + " called about the overdue balance of {due} on the linked credit line. "
        + ("The customer explained that {he} had filed for {fact} in March and that the case is pending; the attorney's notice is on file."
           if not named else "{He} explained that hours at {emp} were cut and that income dropped sharply over the last two months."),
        n=cu.name, due=w.amount(900, 18000), he=cu.he, He=cu.He, emp=cu.employer, fact=cu.value(SECRET_FACT, "financial_hardship"),
    )
    b.para(
        "Options discussed: a 90-day payment deferral, a reduced payment plan of {pay} per month, and closing the line to stop further interest. "
        "Collection calls have been paused as required while the request is reviewed.",
        pay=w.amount(50, 400),
    )
    b.para(
        "Account flagged to suppress automated dialer calls and marketing offers. The customer was given the direct number of the hardship team and told that "
        "credit bureau reporting would follow the outcome of the review. No promises were made about debt forgiveness."
    )
    b.para(
        "Next step: supervisor review within five business days; letter to follow by mail. Notes restricted to the collections team under the need-to-know rule."
    )
    b.para(
        "The call was handled with the hardship script: the agent confirmed that the customer understood each option, did not pressure for an immediate payment, "
        "and recorded the customer's preferred contact window. A summary of the options will be mailed so that the customer can compare them calmly."
    )
    return b


def complaint_letter(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para("{n}\n{st}\n{ci}\n{em}", n=cu.name, st=cu.street, ci=cu.city, em=cu.email)
    b.para("{v}", v=w.date(day, 3))
    b.para("Customer Relations\n{bank}", bank=BANK)
    b.para("Re: checking account {acct}", acct=cu.account)
    b.para("To whom it may concern,")
    b.para(
        c.pick([
            "I am writing to complain about the handling of a payment I made on {pd}. I sent {amt} to my landlord and it was returned without explanation, which led to a late fee.",
            "I want to raise a formal complaint. On {pd} a cheque for {amt} that I deposited was held for nine days, and nobody at the branch could tell me why.",
        ]),
        pd=w.date(day - dt.timedelta(days=c.rng.randrange(10, 40)), 3), amt=w.amount(400, 4500),
    )
    b.para(
        "I have banked with you for many years and my salary from {emp} is paid into this account every month. When I called, I spoke to {an}, who was polite but said "
        "nothing could be done. I was left without funds for a week and had to borrow money from my {rel}.",
        emp=cu.employer, an=ag.name, rel=cu.relation,
    )
    b.para(
        "I ask that you refund the fees charged as a result, {fee} in total, and explain in writing what went wrong. I can be reached at {ph} during the day. "
        "If I do not receive a response within eight weeks, I will take the matter to the Consumer Financial Protection Bureau.",
        fee=w.amount(25, 180), ph=cu.phone,
    )
    b.para("Sincerely,\n{n}", n=cu.name)
    return b


def card_replacement(w: BankWorld, cu: Person, day: dt.date) -> DocBuilder:
    c, ag = w.cast, cu.agent
    b = DocBuilder()
    b.para(
        "Card services ticket, {v}. {n} reported {why}. The card ending in {l4} was cancelled immediately and a replacement ordered.",
        v=w.date(day, 1), n=cu.name, why=c.pick(["the card lost while travelling", "the card stolen from a gym locker", "the card damaged and unreadable at ATMs"]), l4=cu.card_last4,
    )
    b.para(
        "Recent activity was reviewed with the customer; the last genuine purchase was {amt} at {mer} on {pd}. No unauthorized transactions were found after that time, "
        "so no dispute was opened.",
        amt=w.amount(5, 300), mer=c.pick(MERCHANTS), pd=w.date(day - dt.timedelta(days=1), 1),
    )
    b.para(
        "Delivery: standard mail to the address on file, {st}, {ci}. The customer declined expedited shipping. Recurring payments linked to the old card "
        "(streaming services and a gym membership) will need to be updated by the customer once the new card arrives.",
        st=cu.street, ci=cu.city,
    )
    b.para(
        "Digital wallet tokens were suspended and will be re-provisioned on activation. A text alert was sent to {ph}. Ticket closed by {an}. "
        "Customer reminded that the new card must be activated before use and that the PIN remains unchanged.",
        ph=cu.phone, an=ag.name,
    )
    b.para(
        "Fraud monitoring on the account was raised to the heightened level for 30 days as a precaution. If the old card is found it must not be used; "
        "the customer was asked to cut it through the chip and dispose of it safely."
    )
    return b


TEMPLATES: dict[str, tuple[Template, str]] = {
    "chat_transcript": (chat_transcript, "txt"),
    "call_log": (call_log, "txt"),
    "account_review": (account_review, "md"),
    "fraud_dispute": (fraud_dispute, "md"),
    "loan_note": (loan_note, "md"),
    "wire_request": (wire_request, "txt"),
    "maintenance_record": (maintenance_record, "txt"),
    "hardship_note": (hardship_note, "jsonl"),
    "complaint_letter": (complaint_letter, "md"),
    "card_replacement": (card_replacement, "jsonl"),
}


def build(cast: Cast) -> tuple[list[Document], list[Person]]:
    """The bank corpus: 50 documents over 18 customers."""
    w = BankWorld(cast)
    regular = w.customers[:-1]
    names = list(TEMPLATES)
    docs: list[Document] = []
    for i in range(48):
        template, cu = names[i % len(names)], regular[(i * 5) % len(regular)]
        fn, fmt = TEMPLATES[template]
        b = fn(w, cu, cast.day(START, END))
        docs.append(Document(f"bank-{i + 1:03d}", template, fmt, b.text, b.spans, [cu.pid, cu.relative.pid, cu.agent.pid]))
    anon = hardship_note(w, w.secret, dt.date(2025, 4, 16), named=False)
    docs.append(Document(f"bank-{len(docs) + 1:03d}", "hardship_note", "jsonl", anon.text, anon.spans, [w.secret.pid]))
    maint = maintenance_record(w, w.secret, dt.date(2025, 1, 22))
    docs.append(Document(f"bank-{len(docs) + 1:03d}", "maintenance_record", "txt", maint.text, maint.spans, [w.secret.pid, w.secret.relative.pid]))
    people = w.staff + w.customers + [cu.relative for cu in w.customers]
    return docs, people
