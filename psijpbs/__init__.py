"""psijpbs: a PSI/J executor for PBS Professional and OpenPBS, registered as ``pbspro``.

Use it through PSI/J: ``JobExecutor.get_instance('pbspro')``. Importing this package has no side
effects beyond importing psij itself.
"""

__version__ = '1.0.0'

# psij loads psijpbs/executor.py while it scans psij-descriptors/ during its own import. If that
# scan started from inside one of our modules (say `import psijpbs.config` before any `import
# psij`), the executor module would meet that half-initialized module and fail to register.
# Importing psij here, before any submodule runs, makes the scan happen first in every order.
import psij  # noqa: E402,F401

__all__ = ['__version__']
