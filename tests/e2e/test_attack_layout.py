"""The attack tests stay organised by invariant (docs/HACKING.md, "Add an
attack test"): one file per security invariant of docs/design.md, whose
text names it; in it, blocks listed at the top, one a promise; each test's
docstring names its file's invariant and a promise before its threat."""
import ast
import os
import pathlib
import re

E2E = pathlib.Path(__file__).parent
# the source tree: run-all runs a staged copy of tests/e2e
SOURCE = pathlib.Path(os.environ.get("LNK_SOURCE") or E2E.parent.parent)
DESIGN = SOURCE / "docs" / "design.md"


def attack_files():
    return sorted(E2E.glob("test_inv[0-9]_*.py"))


def test_one_attack_file_per_invariant_named_in_the_design():
    files = attack_files()
    assert [int(p.name[8]) for p in files] == list(range(1, 10)), files
    text = DESIGN.read_text()
    section = text[text.index("## Security invariants"):
                   text.index("## Fail closed")]
    for p in files:
        assert f"Attacked by: `tests/e2e/{p.name}`" in section, p.name
    # the attacks live only there: a new pass adds its attacks to these
    # files, never a test_attack_*.py file of its own beside them
    assert not (E2E / "test_attacks.py").exists()
    others = sorted(p.name for p in E2E.glob("test_attack_*.py")
                    if p.name != "test_attack_layout.py")
    assert not others, (f"{others}: move each attack into the file of the "
                        "invariant it attacks (docs/HACKING.md, \"Add an "
                        "attack test\")")


def test_every_attack_names_its_invariant_and_its_block_is_listed():
    for p in attack_files():
        n = p.name[8]
        text = p.read_text()
        tree = ast.parse(text)
        doc = ast.get_docstring(tree)
        assert doc and doc.startswith(f"Invariant {n},"), p.name
        listed = re.findall(r"^#   ([A-Z])\. (.+)$", text, re.M)
        banners = re.findall(r"^# ([A-Z])\. (.+)$", text, re.M)
        assert listed and listed == banners, (p.name, listed, banners)
        tests = [f for f in tree.body if isinstance(f, ast.FunctionDef)
                 and f.name.startswith("test_")]
        assert tests, p.name
        for f in tests:
            d = ast.get_docstring(f) or ""
            assert d.startswith(f"Invariant {n} (") and \
                "promise:" in d.split("\n\n")[0], (p.name, f.name)
