"""The server tests use the fake_pbs.testing plugin's fixtures (one cluster per session)."""
from fake_pbs.testing import fake_cluster, fake_pbs  # noqa: F401
