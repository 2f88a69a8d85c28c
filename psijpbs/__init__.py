"""psijpbs: a PSI/J executor for PBS Professional and OpenPBS, registered as ``pbspro``.

Use it through PSI/J: ``JobExecutor.get_instance('pbspro')``. Importing this package is cheap and
has no side effects (PSI/J instantiates every registered executor when its test suite loads).
"""

__version__ = '1.0.0'

__all__ = ['__version__']
