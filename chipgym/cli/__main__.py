import sys

from chipgym.cli import main

sys.exit(main())
