"""``python -m governance.cli`` runs the medassure command."""

import sys

from governance.cli import main

sys.exit(main())
