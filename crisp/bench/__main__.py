"""`python -m crisp.bench ARGS`: the same as `crisp bench ARGS`."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
