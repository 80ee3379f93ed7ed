"""The README's examples run as written: its ``PlacementDirect`` snippet, pasted
into a fresh Python, on every database of the run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests import rig

README = Path(__file__).resolve().parent.parent / "README.rst"
#: The line of the snippet that names its database; other backends replace it.
SQLITE_LINE = 'database = f"sqlite:///{tempfile.mkdtemp()}/placement.sqlite"'


def literal_block_after(marker: str) -> str:
    """The first ``::`` literal block after the paragraph holding ``marker``."""
    lines = README.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if marker in line)
    colons = next(i for i in range(start, len(lines)) if lines[i].endswith("::"))
    block = []
    for line in lines[colons + 1 :]:
        if line and not line.startswith(" "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block)).strip() + "\n"


def test_placement_direct_snippet_runs_as_pasted(backend, tmp_path):
    snippet = literal_block_after("Offline tools (upgrade scripts")
    assert SQLITE_LINE in snippet
    with rig.fresh_database(backend) as url:
        if backend != "sqlite":
            snippet = snippet.replace(SQLITE_LINE, f"database = {url!r}")
        (tmp_path / "snippet.py").write_text(snippet)
        done = subprocess.run(
            [sys.executable, "snippet.py"],
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if not k.startswith("OS_")},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert (done.returncode, done.stdout) == (0, "200 {'resource_providers': []}\n"), done.stderr
