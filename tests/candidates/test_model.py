"""The pure steps stay pure: importing them loads no SQL module."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: What a pure step must not pull in, directly or through another module.
SQL = ("sqlalchemy", "placement.db", "placement.objects")


@pytest.mark.parametrize(
    "module",
    ["placement.candidates.model", "placement.candidates.combine", "placement.candidates.output"],
)
def test_pure_step_imports_no_sql_module(module: str) -> None:
    # A fresh interpreter: this one has loaded everything already.
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {module}; print(' '.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert [name for name in loaded if name.startswith(SQL)] == []
