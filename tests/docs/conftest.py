"""The root-started cluster with real local users that tests/security uses (its ``rig``)."""
from ..security.conftest import rig  # noqa: F401 (a fixture, used by name)
