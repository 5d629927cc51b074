"""``python -m cli`` runs the medassure command."""

import sys

from cli import main

sys.exit(main())
