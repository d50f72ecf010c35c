"""agent-memory-notebooks: persistent, personalized memory for OpenAI Agents SDK agents.

Every module names its stage and notebook on its first line ("Stage 7 — consolidation
(notebook 07): ..."). The modules, by stage:

Stage 0 — setup and the concierge (notebook 00)
    llm                  model selection: OpenAI with a key, the embedded model without (a package)
    notebook             what every notebook starts with: pinned date, banner, the shared model
    paths                where the course's files live
    concierge            the course's example agent, and one conversational turn
    catalogue            the offline travel catalogue: its data, places and dates
    catalogue_build      the seeded generator of the catalogue's CSV files
    searches             the three catalogue searches, as rows, lines and SDK tools
    chat                 a chat widget bound to a memory state
Stage 1 — the state object (notebook 01)
    state                the profile and memory notes with provenance
    note_fields          what a note's fields may hold (kinds, scopes, statuses)
Stage 2 — capture (notebook 02)
    tools                save_memory_note, the capture tool the agent calls
    write_policy         every rule that decides what may enter memory, in one object
    provenance           whose words a note is in after a document: the user's, the page's or nobody's
    gate                 the rule table for what memory must never hold
    detectors            the gate's detector families, one a module (a package)
    directive            is a note about the user, or a message to her agent?
    veto                 a model that may refuse a note the rules allow, never allow one they refuse
    encoder              sentence encoders: text in any language to unit vectors (veto, provenance)
    text                 words in any script: fold, tokens, stem, and unsupported(text, sources)
    ledger               every write decision, allowed or refused, as a keyed digest
    gate_eval            recall and false blocks of the write defence on labelled sets
Stage 3 — rendering (notebook 03)
    render               YAML frontmatter and Markdown notes for the prompt
    budget               token counting and the context budget
Stage 4 — injection (notebook 04)
    hooks                dynamic instructions, hooks, and prompt capture
    inspect              ipywidgets: prompt inspector and policy editor
Stage 5 — the memory policy (notebook 05)
    policy               the memory-policy text and its precedence rules
    arguments            memory fills a search's arguments, in code, by precedence
    travel               the concierge's searches with memory in the loop
    answers              answers composed in code from search and recall results
    recall               recall_notes: a question about memory answered from the notes
Stage 6 — long sessions (notebook 06)
    trimming             Session implementations: trimming and compaction
Stage 7 — consolidation (notebook 07)
    consolidation        the whole pass, and the stage's public names
    consolidation_rules  step 1: the merge with rules only
    consolidation_plan   steps 2 and 3: the model's plan, checked before it is applied
    consolidation_claims what a note claims: duplicates, support, hedges, carries
    consolidation_report the decisions of a merge, and how one is recorded
    attributes           a changed one-value attribute (home city, diet, seat) supersedes the old one
Stage 8 — persistence (notebook 08)
    store                SQLite persistence per tenant and user
    store_schema         the SQLite file: schema, migrations, errors, WAL and key checks
    store_postgres       the same contract over PostgreSQL
    store_base           what both backends share, no SQL
    store_erasure        what an erasure takes (plan_forget), and what it reports
    store_export         a user's memory as one JSON document
    store_key            the store's key, outside the database
    caseless             the caseless forms text is matched in (caseless, loose)
    conversations        where a conversation is kept: an SDK Session beside the store
    lifecycle            open a user's memory, run turns, end the session in one call
Stage 9 — evals (notebook 09)
    evals                scenario suite, reference agents, checks (a package)
    economics            token economics: memory injection against full replay
Stage 10 — retrieval (notebook 10)
    retrieval            pick the notes that serve the current message
    retrieval_eval       precision and recall at k on the labelled set
    safety               which notes are about health or safety (captured "restricted", ranked first)

Layers point one way (tests/project/test_import_cycles.py): state below capture, capture below
rendering and injection, those below sessions, consolidation and the store.
"""
