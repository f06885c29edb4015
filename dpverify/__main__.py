import sys

from dpverify.cli import main

sys.exit(main())
