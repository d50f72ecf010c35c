import sys

from helpers.evals.cli import main

sys.exit(main())
