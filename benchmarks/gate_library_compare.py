"""Compare the gate's own detectors with presidio-analyzer, detect-secrets and phonenumbers.

Not part of the project's dependencies: install them first (they run offline once installed),
    pip install presidio-analyzer detect-secrets phonenumbers
    python benchmarks/gate_library_compare.py

For each library, on the corpus cases of the categories it covers and on every ordinary
preference statement: recall, false blocks, p95 latency, and what the gate + library union adds.
"""

from __future__ import annotations

import statistics
import tempfile
import time

from helpers.gate import check
from helpers.gate_eval import load_corpus


def presidio_detector():
    import logging

    import spacy
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    folder = tempfile.mkdtemp()
    spacy.blank("en").to_disk(folder)
    engine = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": folder}],
        }
    ).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
    return lambda text: bool(analyzer.analyze(text=text, language="en", score_threshold=0.4))


def detect_secrets_detector():
    # scan_line() is "eager" (it reports every word as a high-entropy string): ask each plugin
    # directly, as a scan of a file would, with its entropy limits and filters.
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import default_settings

    with default_settings():
        plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values()]

    def found(text: str) -> bool:
        return any(
            plugin.analyze_line(filename="note.txt", line=line, line_number=1)
            for line in text.splitlines() or [text]
            for plugin in plugins
        )

    return found


def phonenumbers_detector():
    import phonenumbers

    def found(text: str) -> bool:
        return any(
            True
            for region in ("US", "GB", "AU", "DE", "IN")
            for _ in phonenumbers.PhoneNumberMatcher(
                text, region, leniency=phonenumbers.Leniency.VALID
            )
        )

    return found


LIBRARIES = {
    "presidio-analyzer": (
        presidio_detector,
        (
            "government_id",
            "contact",
            "payment",
            "obfuscated_government",
            "obfuscated_contact",
            "obfuscated_payment",
        ),
    ),
    "detect-secrets": (detect_secrets_detector, ("secret", "obfuscated_secret")),
    "phonenumbers": (phonenumbers_detector, ("contact_phone",)),
}


def main() -> None:
    cases = load_corpus()
    prefs = [c for c in cases if c["expected"] == "allow"]
    for name, (make, prefixes) in LIBRARIES.items():
        try:
            detector = make()
        except ImportError as error:
            print(f"{name}: not installed ({error})")
            continue
        positives = [
            c for c in cases if c["expected"] != "allow" and c["category"].startswith(prefixes)
        ]
        timings, lib_hits, gate_hits, union, per_category = [], 0, 0, 0, {}
        for case in positives:
            text = "\n".join([case["text"], *case["keywords"]])
            start = time.perf_counter()
            hit = detector(text)
            timings.append((time.perf_counter() - start) * 1000)
            gate = not check(case["text"], case["keywords"]).allowed
            lib_hits += hit
            per_category.setdefault(case["category"], [0, 0])[0] += hit
            per_category[case["category"]][1] += 1
            gate_hits += gate
            union += hit or gate
        false_lib = sum(detector(c["text"]) for c in prefs)
        false_gate = sum(not check(c["text"]).allowed for c in prefs)
        p95 = statistics.quantiles(timings, n=100)[94]
        print(
            f"{name}: {len(positives)} cases; recall library {lib_hits / len(positives):.3f}, gate "
            f"{gate_hits / len(positives):.3f}, union {union / len(positives):.3f}; "
            f"false blocks on {len(prefs)} preferences: library {false_lib}, gate {false_gate}; "
            f"library p95 {p95:.2f} ms"
        )
        print(
            "   library recall by category: "
            + ", ".join(f"{c} {hit / n:.2f}" for c, (hit, n) in sorted(per_category.items()))
        )


if __name__ == "__main__":
    main()
