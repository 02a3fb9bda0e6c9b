"""Staff evidence from the closing of letters and emails.

A name is left visible as staff only on strong evidence (issue 12, class 1).
The closing of a letter or an email is such evidence when it is complete:

* a *signature block*: the name alone on its line (post-nominals allowed),
  written after a valediction ("Yours sincerely", "Kind regards", with at
  most a short first-name line between) and followed by a job-title line
  ("Lending Officer", "HR Business Partner").  A name with a valediction
  but no job title (a customer signing their own letter) is no evidence;
* a *colleague*: a name in an email header ("To: Tom Berg
  <t.berg@firm.example>") on the mail domain of someone who signed as staff.
  Public webmail domains never count.

The role logic (:mod:`policy_engine.detect.roles`) still lets any cue that
makes the person a data subject outweigh this evidence.
"""

from __future__ import annotations

import re

from policy_engine.detect.lexicon_recognizers import JOB_HEADS

_VALEDICTION = re.compile(
    r"(?i)^[ \t>]*(?:yours\s(?:sincerely|faithfully|truly)|(?:kind|best|warm|warmest|many)\s(?:regards|wishes|thanks)|regards|best|cheers"
    r"|with\s(?:thanks|best\swishes|kind\sregards)|thanks|respectfully)[ \t]*[,.!]?[ \t]*$"
)
_POSTNOMINALS = re.compile(r"^[ \t,]*(?:(?:[A-Z]{2,}[A-Za-z]*|\([^)\n]{1,20}\))[ \t,]*)*$")
_TITLE_WORD = re.compile(r"[A-Z][\w&'-]*|[A-Z]{2,}|of|and|for|the|&")
_STAFF_HEADS = frozenset(
    JOB_HEADS.split("|")
    + "partner associate handler adviser advisor solicitor barrister caseworker executive lead head registrar counsel clerk representative agent".split()
)
_HEADER_LINE = re.compile(r"(?i)^[ \t>]*(?:from|to|cc|bcc|reply-to|sender)[ \t]*:[ \t]*$")
_MAIL_DOMAIN_AFTER = re.compile(r"[ \t]*<[^<>@\s]+@(?P<domain>[\w.-]+\.[A-Za-z]{2,})>")
_WEBMAIL = frozenset(
    "gmail.com googlemail.com yahoo.com yahoo.co.uk hotmail.com hotmail.co.uk outlook.com live.com msn.com icloud.com me.com aol.com "
    "proton.me protonmail.com gmx.de gmx.net web.de mail.com yandex.ru zoho.com".split()
)


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    return text.rfind("\n", 0, start) + 1, (text.find("\n", end) + 1 or len(text) + 1) - 1


def _is_job_title(line: str) -> bool:
    words = line.strip(" \t>").split()
    return 0 < len(words) <= 6 and all(_TITLE_WORD.fullmatch(w) for w in words) and any(w.lower().rstrip("s") in _STAFF_HEADS for w in words)


def _after_valediction(lines_before: list[str]) -> bool:
    short_lines = 0
    for line in reversed(lines_before[-5:]):
        if _VALEDICTION.match(line):
            return True
        if line.strip(" \t>"):
            short_lines += 1
            if short_lines > 1 or len(line.split()) > 2:
                return False
    return False


def in_signature_block(text: str, start: int, end: int) -> bool:
    """The name ``text[start:end]`` is alone on its line after a valediction and before a job-title line."""
    line_start, line_end = _line_bounds(text, start, end)
    if text[line_start:start].strip(" \t>") or not _POSTNOMINALS.match(text[end:line_end]):
        return False
    next_line = text[line_end + 1 :].split("\n", 1)[0]
    return _is_job_title(next_line) and _after_valediction(text[:line_start].split("\n")[:-1])


def header_mail_domain(text: str, start: int, end: int) -> str | None:
    """The organisation's mail domain of an email header name ("To: Tom Berg <t.berg@firm.example>"); None for webmail."""
    line_start, _ = _line_bounds(text, start, end)
    match = _MAIL_DOMAIN_AFTER.match(text, end)
    if not _HEADER_LINE.match(text[line_start:start]) or match is None:
        return None
    domain = match.group("domain").lower()
    return None if domain in _WEBMAIL else domain
