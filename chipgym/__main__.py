"""``python -m chipgym``: the ``chipgym`` command."""
from chipgym.cli import main

raise SystemExit(main())
