"""The command-line contract, command by command: bad input exits 1 with one line naming the input and the fix, refusals exit 4.

Exit codes as the README lists them (0 ok, 1 tool or usage error, 2 warnings,
3 policy errors, 4 refused).  Every message is checked for what must never be
in it: a traceback, a subprocess command line, the temporary directory a
command made, an invented ``file:1:1`` position for a file that does not exist,
or advice to write a bundle into the policy repo.  Runs the real CLI (click's
runner over ``click_cli.cli``); only the refusal cases open the engine, on one
bundle compiled per module.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from compile_support import FIXTURE, copy_fixture

from click_cli import cli

NEVER = ("Traceback", "Command '[", "policy-engine-diff-", ":1:1:", "returned non-zero exit status")
REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), obj={})


def assert_bad_input(result: Result, *must: str) -> None:
    """Exit 1, one ``Error:`` line holding each of ``must``, and nothing that must never be shown."""
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and result.output.strip().splitlines()[-1] == errors[0], result.output
    for text in must:
        assert text in errors[0], result.output
    for text in NEVER:
        assert text not in result.output, result.output


@pytest.fixture(scope="module")
def policy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture policy, with query_rewrite first so a question can be refused."""
    root = tmp_path_factory.mktemp("contract")
    policy = copy_fixture(root / "policy")
    policy.write_text(policy.read_text() + "audit: {log: audit/decisions.jsonl, ledger: state/ledger.sqlite}\nenforcement: {order: [query_rewrite, redaction]}\n")
    return policy.parent


@pytest.fixture(scope="module")
def bundle(policy_dir: Path) -> Path:
    from policy_engine.bundle.reader import compile_bundle

    compile_bundle(policy_dir / "policy.yaml", policy_dir.parent / "bundle", knowledge_graph=False)
    return policy_dir.parent / "bundle"


@pytest.fixture(autouse=True)
def audit_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "contract-test-key")


# --- paths ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["lint"],
        ["fmt", "--check"],
        ["compile"],
        ["explain"],
        ["test"],
        ["rewrite", "{}", "What is asthma?"],
        ["erase", "{}", "{fixture}/corpus/clinic-handbook.txt"],
        ["guard", "check", "{}", "An answer."],
        ["review", "list", "{}"],
        ["sanitize", "{}", "--input", "{fixture}/corpus", "--output", "{out}"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_a_mistyped_policy_path_is_named_with_the_closest_name(command: list[str], tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "mini-clinic")
    typo = str(tmp_path / "mini-clinc")
    args = [a.format(typo, fixture=FIXTURE, out=tmp_path / "out") for a in command]
    if "{}" not in command:
        args.append(typo)
    assert_bad_input(run(*args), f"{typo} does not exist; did you mean {tmp_path / 'mini-clinic'}?")


def test_a_missing_input_with_nothing_close_says_where_relative_paths_start(tmp_path: Path) -> None:
    assert_bad_input(run("sanitize", str(FIXTURE), "--input", str(tmp_path / "zzz"), "--output", str(tmp_path / "out")), "--input", "does not exist")


def test_a_policy_where_a_bundle_belongs_gets_the_compile_command_outside_the_policy_repo(policy_dir: Path) -> None:
    for command in (["protect", str(policy_dir), "Why?"], ["ask", str(policy_dir), "Why?"], ["inspect", str(policy_dir)], ["query", str(policy_dir), "Why?"]):
        result = run(*command)
        assert_bad_input(result, f"{policy_dir} is a policy, not a compiled bundle", f"`policy-engine compile {policy_dir}`", "bundles/mini-clinic")
        assert f"-o {policy_dir}" not in result.output
    assert_bad_input(run("lint", str(policy_dir), "--bundle", str(policy_dir)), "is a policy, not a compiled bundle")
    assert_bad_input(run("test", str(policy_dir), "--bundle", str(policy_dir / "corpus")), "is not a compiled bundle (no manifest.json)")


def test_a_missing_bundle_is_named(tmp_path: Path) -> None:
    assert_bad_input(run("protect", str(tmp_path / "bundles" / "clinic"), "Why?"), "does not exist", "policy-engine compile POLICY")


def test_audit_logs_and_ledgers_that_do_not_exist(tmp_path: Path) -> None:
    for command in (["verify"], ["tail"], ["query"], ["report"]):
        assert_bad_input(run("audit", *command, str(tmp_path / "nope.jsonl")), "no such log", "nope.jsonl")
    log = tmp_path / "decisions.jsonl"
    log.write_text("")
    assert_bad_input(run("audit", "report", str(log), "--no-verify", "--ledger", str(tmp_path / "ledger.sqlite")), "no such ledger", "--ledger")
    (tmp_path / "ledger.sqlite").write_text("not a database, just text\n")
    assert_bad_input(run("audit", "report", str(log), "--no-verify", "--ledger", str(tmp_path / "ledger.sqlite")), f"{tmp_path / 'ledger.sqlite'} is not a privacy-budget ledger")
    assert (tmp_path / "ledger.sqlite").read_text() == "not a database, just text\n"


def test_init_never_overwrites_and_says_so(tmp_path: Path) -> None:
    assert run("init", str(tmp_path / "repo")).exit_code == 0
    assert_bad_input(run("init", str(tmp_path / "repo")), "already exist", "choose an empty directory")


def test_an_unknown_vocabulary_lists_the_known_ones() -> None:
    assert_bad_input(run("vocab", "nope"), "'nope' is not one of", "categories")


# --- diff and git revisions -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    copy_fixture(root / "policies" / "mini")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "policy"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return root


def test_diff_with_a_bad_revision_or_path_names_it_without_git_or_temp_paths(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(git_repo)
    assert_bad_input(run("diff", "nosuchrev:policies/mini", "policies/mini"), "git cannot read revision 'nosuchrev'", "REV:PATH")
    assert_bad_input(run("diff", "HEAD:policies/mnii", "policies/mini"), "policies/mnii does not exist at revision HEAD", "git ls-tree")
    assert_bad_input(run("diff", "policies/mini", "policies/mnii"), "policies/mnii does not exist; did you mean policies/mini?")


def test_diff_of_a_revision_against_itself_exposes_nothing(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(git_repo)
    result = run("diff", "HEAD:policies/mini", "policies/mini")
    assert result.exit_code == 0, result.output


# --- files that are not what a command reads ------------------------------------------------------------------------


def test_erase_on_a_binary_file_names_the_file(tmp_path: Path) -> None:
    binary = tmp_path / "scan.pdf"
    binary.write_bytes(b"%PDF-1.7\n\xbf\xff\x00binary")
    assert_bad_input(run("erase", str(FIXTURE), str(binary)), f"{binary} is not UTF-8 text", "0xbf")


GUARD_POLICY = """\
apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {name: guard-contract}
constraints:
  - id: names
    statement: Hide the names of patients.
quasi_identifiers:
  domain: medical
  classes: [AGE, OCCUPATION, LOCATION]
audit: {log: audit/decisions.jsonl, ledger: state/ledger.sqlite}
"""


@pytest.fixture
def guard_policy(tmp_path: Path) -> Path:
    (tmp_path / "policy.yaml").write_text(GUARD_POLICY)
    return tmp_path


def test_guard_check_never_trains(guard_policy: Path) -> None:
    result = run("guard", "check", str(guard_policy), "The patient is 52 years old.", "-f", "json")
    assert result.exit_code == 0, result.output
    assert not (guard_policy / ".policy-engine" / "guard").exists()  # the shipped guard: nothing trained or saved
    withheld = run("guard", "check", str(guard_policy), "Regarding the patient: she is 52, works as a welder and lives in Omaha.", "-f", "json")
    data = json.loads(withheld.stdout)
    assert data["output_guard"]["action"] == "generalized" and "Omaha" not in data["released"] and "welder" not in data["released"]


def test_guard_check_refuses_an_empty_answer(guard_policy: Path) -> None:
    assert_bad_input(run("guard", "check", str(guard_policy), "  "), "ANSWER", "the answer is empty")


def test_a_corrupt_review_queue_is_named(guard_policy: Path) -> None:
    (guard_policy / "state").mkdir()
    (guard_policy / "state" / "guard-review.sqlite").write_bytes(b"this is not a database " * 100)
    for command in (["list", str(guard_policy)], ["show", str(guard_policy), "abc"], ["approve", str(guard_policy), "abc", "--reviewer", "alice"]):
        assert_bad_input(run("review", *command), f"{guard_policy / 'state' / 'guard-review.sqlite'}: the review queue cannot be read", "move the file aside")


# --- questions, principals, purposes (no engine opens: the arguments are refused first) -----------------------------


@pytest.mark.parametrize("command", ["protect", "ask", "query"])
@pytest.mark.parametrize("question", ["", "   \n"])
def test_an_empty_question_is_bad_input(bundle: Path, command: str, question: str) -> None:
    assert_bad_input(run(command, str(bundle), question), "'QUESTION'", "the question is empty")


def test_rewrite_refuses_an_empty_question_as_bad_input() -> None:
    assert_bad_input(run("rewrite", str(FIXTURE), ""), "'QUESTION'", "the question is empty")


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--principal", "n" * 10_000, "the principal is 10,000 characters long; the limit is 200"),
        ("--principal", "nurse-7\nFORGED outcome=allowed", "the principal holds line breaks or control characters (U+000A)"),
        ("--purpose", "care\x1b[31m", "the purpose holds line breaks or control characters (U+001B)"),
        ("--purpose", "", "the purpose is empty"),
    ],
)
def test_principal_and_purpose_are_one_short_printable_line(bundle: Path, option: str, value: str, expected: str) -> None:
    for command in ("protect", "ask"):
        assert_bad_input(run(command, str(bundle), "Why was the patient admitted?", option, value), f"'{option}'", expected)


# --- refusals exit 4 (the engine opens here) ------------------------------------------------------------------------


def test_rewrite_refusal_exits_4() -> None:
    result = run("rewrite", str(FIXTURE), "Jane Doe")
    assert result.exit_code == 4, result.output
    assert result.stderr.startswith("refused: ")


def test_protect_and_ask_exit_4_when_the_request_is_denied(bundle: Path) -> None:
    for command in ("protect", "ask"):
        result = run(command, str(bundle), "Jane Doe", "--principal", "nurse-7")
        assert result.exit_code == 4, result.output
        assert "denied: enforcer 'query_rewrite' failed" in result.stderr and result.stdout == ""


def test_protect_exits_0_with_the_context(bundle: Path) -> None:
    result = run("protect", str(bundle), "Which phone number should patients call?", "--principal", "nurse-7", "--purpose", "care", "-q")
    assert result.exit_code == 0, result.output
    assert "555" not in result.stdout


def test_readme_lists_the_exit_codes_the_commands_use() -> None:
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "**4** refused: `protect` or `ask` denied the request or withheld the answer, `rewrite` found no safe rewrite" in readme
