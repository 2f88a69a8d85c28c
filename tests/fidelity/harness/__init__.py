"""The fidelity replay harness: cases, normalization, job-id mapping, replay, report.

See docs/fidelity.md for how the replay works and the normalization rules.
"""
from .cases import Case, load_set, prefix_of
from .jobids import JobMap
from .normalize import Normalizer

__all__ = ["Case", "JobMap", "Normalizer", "load_set", "prefix_of"]
