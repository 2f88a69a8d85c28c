"""Benchmark smoke tests are marked ``bench`` so that ``-m "not bench"`` leaves them out."""
import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bench: runs the benchmarks at smoke-test size (slow)")
