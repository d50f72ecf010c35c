"""`python -m helpers.llm [serve [slots]]`: see `helpers.llm.server`."""

from helpers.llm.server import main

raise SystemExit(main())
