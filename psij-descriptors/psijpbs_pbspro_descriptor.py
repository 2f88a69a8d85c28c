"""Registers the ``pbspro`` executor of the psijpbs package with PSI/J.

psij scans ``<sys.path entry>/psij-descriptors/`` at import time and loads the class from the same
sys.path entry. Only the name ``pbspro`` is registered: ``pbs`` belongs to psij itself (a clash at
the same version breaks psij's own descriptor module) and aliases are ignored by psij 0.9.11. The
version must stay above psij's built-in 0.0.2 so that ``get_instance('pbspro')`` picks this one
should psij ever register ``pbspro`` as an alias of its own executor.
"""
from packaging.version import Version

from psij.descriptor import Descriptor

__PSI_J_EXECUTORS__ = [
    Descriptor(name='pbspro', nice_name='PBS Professional / OpenPBS', version=Version('1.0.0'),
               cls='psijpbs.executor.PBSProJobExecutor'),
]
