"""python-stdnum against the gate's hand-written checksums, on every number in the gate's sets.

    pip install python-stdnum && python benchmarks/stdnum_compare.py

For each digit run (9-19 digits: Luhn) and IBAN shape in the
corpus, the held-out, dev and multilingual sets, asks both implementations and counts where they
disagree, and times each. Results: benchmarks/results/stdnum_compare.txt. The Verhoeff and TFN
rows there were measured before the gate adopted python-stdnum for them (the hand-written
Verhoeff table had a wrong last row); Luhn and mod 97 stay hand-written.
"""

from __future__ import annotations

import json
import re
import time

from stdnum import iban as std_iban
from stdnum import luhn as std_luhn

from helpers.detectors.checksums import iban_valid, luhn_valid
from helpers.paths import data_dir


def numbers() -> tuple[list[str], list[str]]:
    texts = []
    for path in sorted(data_dir().glob("gate_*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            texts.append(case.get("text", ""))
    digits = [re.sub(r"\D", "", m.group()) for t in texts
              for m in re.finditer(r"\d(?:[ .-]?\d){8,18}", t)]
    ibans = [m.group().replace(" ", "").upper() for t in texts
             for m in re.finditer(r"\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?\b", t)]
    return digits, ibans


def compare(name, mine, theirs, items) -> None:
    t0 = time.perf_counter()
    a = [mine(x) for x in items]
    t1 = time.perf_counter()
    b = [theirs(x) for x in items]
    t2 = time.perf_counter()
    differ = [x for x, p, q in zip(items, a, b) if p != q]
    print(f"{name:9} {len(items):5d} numbers, valid {sum(a):4d} / {sum(b):4d} (hand / stdnum), "
          f"disagree {len(differ)}, {1e6 * (t1 - t0) / max(1, len(items)):.1f} / "
          f"{1e6 * (t2 - t1) / max(1, len(items)):.1f} us each {differ[:3]}")


def main() -> None:
    digits, ibans = numbers()
    compare("luhn", luhn_valid, std_luhn.is_valid, [d for d in digits if 9 <= len(d) <= 19])
    compare("iban", iban_valid, std_iban.is_valid, ibans)


if __name__ == "__main__":
    main()
