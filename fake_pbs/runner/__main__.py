"""``python -S -m fake_pbs.runner --home HOME``: the cluster's command runner."""
import sys

from fake_pbs.runner.listen import main

sys.exit(main())
