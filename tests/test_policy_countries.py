"""The policy's ``countries``: validated ISO 3166-1 codes that scope national phone, postcode and national-number formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from policy_engine import lint, load_policy
from policy_engine.detect import Analyzer
from policy_engine.detect.national_numbers import national_number_spans
from policy_engine.policy.model import Constraint, Metadata, Policy

_STATEMENTS = {
    "phones": "Do not reveal tenants' phone numbers",
    "postcodes": "Do not reveal tenants' postcodes or Eircodes",
    "numbers": "Do not reveal tenants' social insurance numbers or PPS numbers",
}
_CONSTRAINTS = [Constraint(id=i, statement=s) for i, s in _STATEMENTS.items()]
#: An Irish mobile, an Irish PPS number and an Eircode; a Canadian SIN and postal code.
_LETTER = (
    "Ms Byrne's number is 087 765 4321 for emergencies. Her PPS number is 8765432S and she lives at D02 X285.\n"
    "Mr Tremblay's SIN is 130 692 544; his postal code is K1N 5Y1."
)


def _hidden(countries: list[str], constraint_id: str) -> set[str]:
    policy = Policy(metadata=Metadata(name="tenants"), constraints=_CONSTRAINTS, countries=countries)
    constraint = policy.constraint(constraint_id)
    return {_LETTER[f.start : f.end] for f in Analyzer(policy).analyze(_LETTER, [constraint])}


def _write(tmp_path: Path, countries: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata:\n  name: tenants\n"
        f"countries: {countries}\nconstraints:\n  - id: phones\n    statement: Do not reveal tenants' phone numbers\n",
        encoding="utf-8",
    )
    return path


def test_default_keeps_every_country_format() -> None:
    assert _hidden([], "phones") == {"087 765 4321"}
    assert _hidden([], "postcodes") == {"D02 X285", "K1N 5Y1"}
    assert _hidden([], "numbers") == {"8765432S", "130 692 544"}


def test_countries_scope_phones_postcodes_and_national_numbers() -> None:
    assert _hidden(["CA"], "phones") == set()  # 087 ... is an Irish national format
    assert _hidden(["CA"], "postcodes") == {"K1N 5Y1"}
    assert _hidden(["IE"], "postcodes") == {"D02 X285"}
    assert _hidden(["IE", "CA"], "numbers") == {"8765432S", "130 692 544"}
    # the checksum kinds follow the countries (the PPS number is still hidden by the generic "number is" cue)
    assert {_LETTER[s:e] for s, e in national_number_spans(_LETTER, ("CA",))} == {"130 692 544"}
    assert {_LETTER[s:e] for s, e in national_number_spans(_LETTER, ("IE",))} == {"8765432S"}


def test_codes_are_upper_cased_and_merged_without_repeats(tmp_path: Path) -> None:
    (tmp_path / "more.yaml").write_text("apiVersion: policy-engine.dev/v1\nkind: PolicyFragment\ncountries: [ca, IE]\n", encoding="utf-8")
    path = _write(tmp_path, "[ie]")
    path.write_text(path.read_text(encoding="utf-8").replace("countries:", "include: [more.yaml]\ncountries:"), encoding="utf-8")
    assert load_policy(path).countries == ["IE", "CA"]


@pytest.mark.parametrize(("code", "message"), [("UK", "write GB"), ("XQ", "did you mean"), ("Ireland", "two letters")])
def test_an_unknown_code_is_an_error_at_its_position(tmp_path: Path, code: str, message: str) -> None:
    diagnostics = lint([_write(tmp_path, f"[IE, {code}]")]).diagnostics
    [error] = [d for d in diagnostics if d.code == "PE101"]
    assert f"'{code}' is not an ISO 3166-1 alpha-2 country code" in error.message and message in error.message
    assert (error.span.line, error.span.col) == (5, 17)
    with pytest.raises(ValidationError, match="ISO 3166-1"):
        Policy(metadata=Metadata(name="x"), countries=[code])


def test_a_kind_outside_the_countries_is_reported_as_not_covered(tmp_path: Path) -> None:
    def warnings(countries: str) -> list[str]:
        path = _write(tmp_path, countries)
        path.write_text(path.read_text(encoding="utf-8").replace("tenants' phone numbers", "tenants' PPS numbers or SIN numbers"), encoding="utf-8")
        return [d.message for d in lint([path]).diagnostics if d.code == "PE116"]

    [warning] = warnings("[IE]")
    assert "'SIN numbers'" in warning
    assert warnings("[IE, CA]") == warnings("[]") == []
