"""Detector helpers the write gate (helpers.gate, notebook 02) calls before its rules match.

Each module reads one way a value is disguised, so the gate's rules match the plain form:
`spelled` (dates and years written in words), `obfuscated` (credential labels in leetspeak, split
by hyphens or spaced out). They import nothing from the gate: the gate imports them.
"""
