"""The project's own documents: the rules it cites exist, its tables and examples are true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from weimaque.games.maque.rules import get_rules, list_rules

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = ROOT / "docs" / "rules.md"
#: a citation: "RULES §4.6(1)" and the sections listed after it ("RULES §4.6, §5.3", "§2–§5")
CITATION = re.compile(r"RULES\.?(?:md)?`?\s*((?:§[\d.]*\d(?:\([0-9]\))?(?:\s*(?:,|and|–|-)\s*)?)+)")
SECTION = re.compile(r"§([\d.]*\d)")


def rule_sections() -> set[str]:
    """Section numbers of docs/rules.md: headings "## 3." and bold labels "**3.1.4**"."""
    text = RULES_MD.read_text(encoding="utf-8")
    found = set(re.findall(r"^## (\d+)\.", text, re.M))
    found |= set(re.findall(r"^\*\*(\d+(?:\.\d+)+)\*\*", text, re.M))
    return found


def citations() -> list[tuple[str, str]]:
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "src").rglob("*.py")]
    files += [*(ROOT / "src").rglob("*.js"), *(ROOT / "src").rglob("*.html")]
    out = []
    for path in files:
        for match in CITATION.finditer(path.read_text(encoding="utf-8")):
            for section in SECTION.findall(match.group(1)):
                out.append((str(path.relative_to(ROOT)), section))
    return out


def test_rules_md_has_every_section() -> None:
    sections = rule_sections()
    for top in range(1, 10):
        assert str(top) in sections
    assert {"3.1.1", "3.1.9", "4.6", "5.3", "6.4", "7.2", "7.3", "8.5"} <= sections


def test_every_rules_citation_names_a_section_of_docs_rules_md() -> None:
    sections = rule_sections()
    cited = citations()
    assert len(cited) > 200  # the code cites the rules throughout
    missing = sorted({(path, s) for path, s in cited if s not in sections})
    assert missing == []


def _preset_table() -> tuple[list[str], dict[str, list[str]]]:
    text = RULES_MD.read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.startswith("| 名堂 | key |")]
    assert len(lines) == 1
    start = text.splitlines().index(lines[0])
    rows = text.splitlines()[start:]
    header = [c.strip() for c in rows[0].strip("|").split("|")][2:]
    table: dict[str, list[str]] = {}
    for row in rows[2:]:
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        table[cells[1].strip("`")] = cells[2:]
    return header, table


def _cell(preset: str, key: str) -> str:
    value = get_rules(preset).patterns.get(key)
    if value is None:
        return "–"
    text = ("×" if value.mode == "mul" else "") + str(value.value)
    return text if value.alt is None else f"{text}/{value.alt}"


def test_preset_table_matches_the_presets() -> None:
    header, table = _preset_table()
    assert header == [r.id for r in list_rules()]
    scored = {k for r in list_rules() for k in r.patterns}
    assert scored <= set(table)
    for key, cells in table.items():
        assert cells == [_cell(p, key) for p in header], key


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("index", range(len(_python_blocks(ROOT / "docs" / "engine.md"))))
def test_engine_md_examples_run(index: int) -> None:
    code = _python_blocks(ROOT / "docs" / "engine.md")[index]
    exec(compile(code, f"docs/engine.md block {index}", "exec"), {})


def test_players_guide_sections_are_rules_sections() -> None:
    # docs/players.md says its bare section numbers point into docs/rules.md.
    text = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    cited = set(SECTION.findall(text))
    assert cited and cited <= rule_sections()
