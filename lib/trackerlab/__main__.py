"""``python -m trackerlab`` is the same as the ``trackerlab`` console script; a Ctrl-C while
the modules load is "interrupted" and exit 130 too, not a traceback."""

import sys

try:
    from trackerlab.commands.cli import main
except KeyboardInterrupt:
    print("trackerlab: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
