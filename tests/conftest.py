"""Shared test configuration: Hypothesis profiles and paths.

Profiles (choose with HYPOTHESIS_PROFILE): ``default`` (200 examples, what CI
runs), ``dev`` (25, quick local runs), ``thorough`` (2000) and ``debug``.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Verbosity, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("default", max_examples=200, derandomize=True, print_blob=True, **_common)
settings.register_profile("dev", max_examples=25, **_common)
settings.register_profile("thorough", max_examples=2000, **_common)
settings.register_profile("debug", max_examples=25, verbosity=Verbosity.verbose, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parent.parent
SYSTEMS = REPO / "systems"


@pytest.fixture(scope="session")
def systems_dir() -> Path:
    return SYSTEMS
