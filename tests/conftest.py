from agents import set_tracing_disabled

# Tests never upload traces: there is no key, and retries would slow every exit.
set_tracing_disabled(True)
