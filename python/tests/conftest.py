import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def pendulum_path():
    return os.path.join(ROOT, "examples", "pendulum.mo")


@pytest.fixture
def decay_path():
    return os.path.join(ROOT, "tests", "sweep", "decay.mo")
