"""The policy's ``countries``: ISO 3166-1 alpha-2 codes of the countries its documents come from.

A policy serving Irish and Canadian tenants writes ``countries: [IE, CA]``;
detection then tries only those countries' national telephone formats,
national-number kinds and postcode formats (numbers written internationally,
"+44 20 ...", are found whatever the list).  An empty list (the default)
keeps the broad built-in set.  A code outside ISO 3166-1 is a validation
error (PE101, at the code's position) naming the closest codes; "UK" and
"EL", the two codes people most often write for GB and GR (the EU's own
abbreviations), are named with the code to use.
"""

from __future__ import annotations

import difflib

#: The 249 officially assigned ISO 3166-1 alpha-2 codes.
ISO_3166_ALPHA2: frozenset[str] = frozenset(
    """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ
    EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU
    ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY
    MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY
    QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ
    UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT
    ZA ZM ZW
    """.split()
)
#: Codes that are not ISO 3166-1 but are written for one (EU and UK usage).
_WRITTEN_FOR = {"UK": "GB", "EL": "GR"}


def country_code(value: str) -> str:
    """``value`` as an upper-case ISO 3166-1 alpha-2 code; ValueError naming the code to use when it is none."""
    code = value.strip().upper()
    if code in ISO_3166_ALPHA2:
        return code
    if code in _WRITTEN_FOR:
        raise ValueError(f"'{value}' is not an ISO 3166-1 alpha-2 country code; write {_WRITTEN_FOR[code]}")
    close = difflib.get_close_matches(code, sorted(ISO_3166_ALPHA2), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else " (two letters, e.g. IE, CA, DE)"
    raise ValueError(f"'{value}' is not an ISO 3166-1 alpha-2 country code{hint}")
