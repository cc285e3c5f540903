import sys

from exportlint.cli import main

sys.exit(main())
