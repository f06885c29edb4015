import sys

from dpverify.interfaces.cli import main

sys.exit(main())
