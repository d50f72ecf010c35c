"""agent-memory-notebooks: persistent, personalized memory for OpenAI Agents SDK agents.

One module per lifecycle stage:
    state          the profile and memory notes with provenance
    text           words in any script: fold, tokens, stem, and unsupported(text, sources)
    gate           the rule table for what memory must never hold (detectors: one family a module)
    detectors      the gate's detector families and per-language phrase tables (a package)
    directive      the directive reading: is a note about the user, or a message to her agent?
    write_policy   the write policy: the gate's rules, provenance, person and scope, one object
    veto           a model that may refuse a note the rules allow, never allow one they refuse
    ledger         every write decision, allowed or refused, as a keyed digest
    tools          save_memory_note, the capture tool the agent calls
    render         YAML frontmatter and Markdown notes for the prompt
    budget         token counting and the context budget
    policy         the memory-policy text and its precedence rules
    hooks          dynamic instructions, hooks, and prompt capture
    trimming       Session implementations: trimming and compaction
    consolidation  merging session notes into global memory
    store          SQLite persistence per tenant and user
    lifecycle      open a user's memory, run turns, end the session in one call
    llm            model selection: OpenAI with a key, the embedded model without (a package)
    catalogue      the offline travel catalogue: its data, loading, places and dates
    catalogue_build  the seeded generator of data/catalogue/*.csv (a data build step)
    searches       the catalogue's flight, hotel and restaurant searches (rows, lines, SDK tools)
    travel         the concierge's searches, their arguments completed from memory in code
    answers        answers composed in code from search and recall results
    recall         recall_notes: a question about memory answered from the notes
    inspect        ipywidgets: prompt inspector and policy editor
    evals          scenario suite, reference agents, checks (a package)
    economics      token economics: memory injection against full replay
"""
