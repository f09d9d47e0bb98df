"""`python -m queryweave.cli ...`: the same command line as the `queryweave` script."""

import sys

from queryweave.cli.main import main

sys.exit(main())
