#!/usr/bin/env python3
"""Developer entry point needing nothing but python3.

    python3 dev.py serve [placement-api options]   # the API on 127.0.0.1:8778
    python3 dev.py test [pytest options]           # the whole test suite

Both create (or reuse) the project's virtual environment in ``.venv`` and
install the project into it, again whenever ``pyproject.toml`` changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "bin")
STAMP = os.path.join(VENV, ".placement-installed")


def _wanted_stamp() -> str:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def ensure_venv() -> None:
    """Create ``.venv`` and install the project with its test extras."""
    if not os.path.exists(os.path.join(BIN, "python")):
        print("dev.py: creating .venv", file=sys.stderr)
        venv.create(VENV, with_pip=True)
    wanted = _wanted_stamp()
    if os.path.exists(STAMP) and open(STAMP).read() == wanted:
        return
    print("dev.py: installing the project into .venv", file=sys.stderr)
    pip = [
        os.path.join(BIN, "python"),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    subprocess.run(pip + ["-e", f"{ROOT}[test]"], check=True)
    with open(STAMP, "w") as handle:
        handle.write(wanted)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("serve", "test"):
        print(__doc__, file=sys.stderr)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "serve":
        args = [os.path.join(BIN, "placement-api"), *rest]
    else:
        args = [os.path.join(BIN, "python"), "-m", "pytest", *rest]
    os.chdir(ROOT)
    os.execv(args[0], args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
