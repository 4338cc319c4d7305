"""Shared fixtures: the interop container files (../shared/interop) and small files written here."""
import os
import pathlib

import pytest

INTEROP = pathlib.Path(os.environ.get(
    "AVK_INTEROP_DIR", pathlib.Path(__file__).resolve().parents[3] / "shared" / "interop"))
APACHE = INTEROP / "apache"


def interop_files():
    """Every .avro file of the apache interop data, relative to APACHE."""
    if not APACHE.is_dir():
        return []
    return sorted(str(p.relative_to(APACHE)) for p in APACHE.rglob("*.avro") if p.is_file())


@pytest.fixture
def apache():
    if not APACHE.is_dir():
        pytest.skip("interop data not found at %s (../shared/interop)" % APACHE)
    return APACHE
