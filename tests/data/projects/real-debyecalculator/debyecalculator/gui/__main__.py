import sys

from debyecalculator.gui import main

sys.exit(main())
