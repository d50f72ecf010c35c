"""`python -m helpers.gate_eval --set PATH` scores a set kept outside the project."""

import json

from helpers import gate_eval


def test_an_external_set_is_scored_by_category_and_language(tmp_path, capsys):
    path = tmp_path / "outside.json"
    path.write_text(json.dumps({"cases": [
        {"text": "Hasło do banku: Tulp!2024", "expect": "block", "category": "secret", "language": "pl"},
        {"text": "Lubi miejsca przy oknie.", "expect": "allow", "category": "ordinary", "language": "pl"},
        {"text": "Prefers aisle seats.", "expect": "block", "category": "secret", "language": "en"},
    ]}), encoding="utf-8")
    assert gate_eval.main(["--set", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"rules, external set: {path} (by category)" in out
    assert f"rules, external set: {path} (by language)" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line and not line.startswith("#")}
    assert rows["secret"][2] == "50.0"  # one of the two must-block secrets is blocked
    assert rows["ordinary"][-1] == "0.0"  # no false block
    assert rows["pl"][2] == "100.0" and rows["en"][2] == "0.0"
