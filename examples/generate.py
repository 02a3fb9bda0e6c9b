"""Generate the example corpora and their ground truth (seeded, deterministic).

Usage::

    .venv/bin/python examples/generate.py            # rewrite examples/{clinic,bank,lawfirm}
    .venv/bin/python examples/generate.py --out DIR  # write elsewhere (e.g. to diff against the committed files)

Each corpus gets ``docs/*.md``, ``docs/*.txt``, ``records.jsonl`` and
``GROUND_TRUTH.json`` (sensitive values by category with exact character
offsets).  All people, identifiers and facts are synthetic (Faker, fixed seeds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpusgen import bank, clinic, lawfirm  # noqa: E402
from corpusgen.core import Cast, write_corpus  # noqa: E402

CORPORA = {"clinic": (clinic, "P"), "bank": (bank, "C"), "lawfirm": (lawfirm, "L")}


def generate(out: Path, names: list[str]) -> None:
    for name in names:
        module, prefix = CORPORA[name]
        documents, people = module.build(Cast(module.SEED, prefix))
        truth = write_corpus(out / name, name, module.SEED, documents, people)
        spans = sum(len(d["spans"]) for d in truth["documents"])
        print(f"{name}: {len(documents)} documents, {spans} labelled spans -> {out / name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="output directory (default: examples/)")
    parser.add_argument("corpora", nargs="*", metavar="CORPUS", help=f"which corpora to build: {', '.join(CORPORA)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.corpora) - set(CORPORA))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(CORPORA)}")
    generate(args.out, args.corpora or list(CORPORA))


if __name__ == "__main__":
    main()
