#!/usr/bin/env python3
"""Developer entry point needing nothing but python3.

    python3 dev.py serve [placement-api options]   # the API on 127.0.0.1:8778
    python3 dev.py test [pytest options]           # the whole test suite
    python3 dev.py lint                            # ruff check, ruff format --check, mypy
    python3 dev.py conformance [harness options]   # upstream's gabbi suite over HTTP
    python3 dev.py freeze                          # refresh constraints.txt from .venv

Each creates (or reuses) the project's virtual environment in ``.venv`` and
installs the project into it, again whenever ``pyproject.toml`` or
``constraints.txt`` changes. ``constraints.txt`` pins every dependency to the
versions the test suite last passed with, so a new release of falcon,
SQLAlchemy or keystoneauth cannot break a fresh ``serve``; ``freeze``
rewrites it from ``.venv`` (refresh on purpose: upgrade ``.venv``, run the
tests, freeze, commit).
``serve`` logs where Prometheus metrics are served, or would be with
``[metrics] enabled = true``. ``lint`` runs every check even after one
fails, and exits non-zero if any found something; ruff's and mypy's
settings are in ``pyproject.toml``. ``conformance`` runs the upstream
conformance harness (not part of this repository:
``$PLACEMENT_CONFORMANCE_DIR``, else ``../shared/conformance`` beside the
repository) against ``.venv``, by default on the public list.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "bin")
STAMP = os.path.join(VENV, ".placement-installed")
CONSTRAINTS = os.path.join(ROOT, "constraints.txt")


def _wanted_stamp() -> str:
    digest = hashlib.sha256()
    for name in ("pyproject.toml", "constraints.txt"):
        with open(os.path.join(ROOT, name), "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


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
    subprocess.run(pip + ["-c", CONSTRAINTS, "-e", f"{ROOT}[test]"], check=True)
    with open(STAMP, "w") as handle:
        handle.write(wanted)


#: The checks of ``lint``, in order; paths and options come from pyproject.toml.
LINT_CHECKS = (
    ("ruff", "check", "."),
    ("ruff", "format", "--check", "."),
    ("mypy",),
)


def lint() -> int:
    """Run every check of :data:`LINT_CHECKS`; 1 if any of them failed."""
    failed = []
    for tool, *args in LINT_CHECKS:
        print(f"dev.py lint: {tool} {' '.join(args)}", file=sys.stderr, flush=True)
        if subprocess.run([os.path.join(BIN, tool), *args], cwd=ROOT).returncode != 0:
            failed.append(" ".join([tool, *args]))
    if failed:
        print(f"dev.py lint: failed: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def conformance_command(rest: list[str]) -> list[str] | None:
    """The harness's ``run.sh`` with our profile and venv, or None when it is absent."""
    harness = os.environ.get("PLACEMENT_CONFORMANCE_DIR") or os.path.join(
        os.path.dirname(ROOT), "shared", "conformance"
    )
    run = os.path.join(harness, "run.sh")
    if not os.path.exists(run):
        print(
            f"dev.py conformance: no harness at {harness}; "
            "set PLACEMENT_CONFORMANCE_DIR to its directory",
            file=sys.stderr,
        )
        return None
    os.environ["PLACEMENT_VENV"] = VENV
    bash = shutil.which("bash") or "/bin/bash"
    return [bash, run, "--profile", "candidate", *(rest or ["--list", "public"])]


#: The browser the console's tests drive (Debian's package ``chromium``).
CHROMIUM = os.environ.get("PLACEMENT_CHROMIUM", "/usr/bin/chromium")

#: The commands ``main`` runs.
COMMANDS = ("serve", "test", "lint", "conformance", "freeze")


def freeze() -> int:
    """Write ``constraints.txt``: every package in ``.venv`` but the project itself."""
    found = subprocess.run(
        [os.path.join(BIN, "python"), "-m", "pip", "freeze", "--exclude-editable"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    header = (
        "# The dependency versions the test suite passed with (python3 dev.py freeze).\n"
        "# dev.py installs with these as constraints; refresh them on purpose.\n"
    )
    with open(CONSTRAINTS, "w") as handle:
        handle.write(header + found)
    return 0


def _test_command(rest: list[str]) -> list[str]:
    """pytest in ``.venv``; a warning first when the browser tests cannot run."""
    if not os.access(CHROMIUM, os.X_OK):
        print(
            f"dev.py test: no Chromium at {CHROMIUM}: the console's browser tests "
            "(tests/console/) will fail; install it with 'apt-get install -y chromium'",
            file=sys.stderr,
        )
    return [os.path.join(BIN, "python"), "-m", "pytest", *rest]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "freeze":
        return freeze()
    if command == "lint":
        if rest:
            print("dev.py lint takes no arguments", file=sys.stderr)
            return 2
        return lint()
    if command == "serve":
        args = [os.path.join(BIN, "placement-api"), *rest]
    elif command == "conformance":
        found = conformance_command(rest)
        if found is None:
            return 2
        args = found
    else:
        args = _test_command(rest)
    os.chdir(ROOT)
    os.execv(args[0], args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
