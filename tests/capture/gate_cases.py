"""Tables of gate cases: each row a class of notes, the decision it expects and its cases.

A row's expected decision is "allow", a rule id, or "refused" (any rule). A case may be a
(text, rule) pair of its own. `params(rows)` makes them one parametrize list, each case named by
its class; `expect(text, expected)` checks one; `table_test(rows)` is the test that checks them all.
"""

import pytest

from helpers.gate import check


def params(rows):
    return [
        pytest.param(*(case if isinstance(case, tuple) else (case, expected)), id=f"{what}: {case}")
        for what, expected, cases in rows
        for case in cases
    ]


def expect(text: str, expected: str) -> None:
    decision = check(text)
    if expected == "allow":
        assert decision.allowed, decision
    elif expected == "refused":
        assert not decision.allowed, decision
    else:
        assert decision.rule == expected, decision


def table_test(rows):
    """One test over every case of the table, each case named by its class."""

    @pytest.mark.parametrize("text, expected", params(rows))
    def test(text, expected):
        expect(text, expected)

    return test
