"""``python -m trackerlab`` is the same as the ``trackerlab`` console script."""

from trackerlab.cli import main

raise SystemExit(main())
