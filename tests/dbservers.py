"""Throw-away MariaDB and PostgreSQL servers that a test may crash and restart.

The shared servers named by ``PLACEMENT_TEST_*_URL`` must never be stopped,
so a test about database outages runs its own: a fresh data directory under
a temporary directory, a spare loopback port, the server in its own process
group. :meth:`Throwaway.kill` is a real crash (SIGKILL to the whole group,
PostgreSQL's backends included); :meth:`Throwaway.start` brings the same
data directory back on the same port, with crash recovery as after a power
cut.

As root, PostgreSQL runs as the ``postgres`` user (it refuses root) and
MariaDB with ``--user=root``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator

import sqlalchemy
from sqlalchemy.pool import NullPool

from tests.server import free_port

_PG_BIN = "/usr/lib/postgresql/15/bin"
_BINARIES = {
    "mysql": ("mariadb-install-db", "mariadbd"),
    "postgresql": (os.path.join(_PG_BIN, "initdb"), os.path.join(_PG_BIN, "postgres")),
}


def missing_binaries(backend: str) -> list[str]:
    """The programs ``backend`` needs that this machine lacks (empty: all there)."""
    return [name for name in _BINARIES[backend] if shutil.which(name) is None]


class Throwaway:
    """One private database server; see the module docstring."""

    def __init__(self, backend: str, directory: str) -> None:
        self.backend = backend
        self.port = free_port()
        self.datadir = os.path.join(directory, "data")
        self.log_path = os.path.join(directory, "server.log")
        self._socket_dir = directory
        self._process: subprocess.Popen | None = None
        self._user = _pg_user() if backend == "postgresql" else None
        if self._user is not None:
            os.chown(directory, self._user.pw_uid, self._user.pw_gid)
        self._initialize()

    @property
    def url(self) -> str:
        """A URL of the server itself, for :func:`tests.dbutil.fresh_database_url`."""
        if self.backend == "mysql":
            return f"mysql+pymysql://root@127.0.0.1:{self.port}/"
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _initialize(self) -> None:
        if self.backend == "mysql":
            command = [
                "mariadb-install-db",
                "--no-defaults",
                f"--datadir={self.datadir}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                *(["--user=root"] if os.geteuid() == 0 else []),
            ]
        else:
            command = [_BINARIES["postgresql"][0], "-D", self.datadir, "-A", "trust"]
            command += ["-U", "postgres", "--no-sync"]
        with open(self.log_path, "a") as log:
            subprocess.run(command, check=True, stdout=log, stderr=subprocess.STDOUT, **self._as())

    def _as(self) -> dict:
        if self._user is None:
            return {}
        return {"user": self._user.pw_uid, "group": self._user.pw_gid}

    def _command(self) -> list[str]:
        if self.backend == "mysql":
            return [
                "mariadbd",
                "--no-defaults",
                f"--datadir={self.datadir}",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--socket={self._socket_dir}/mysqld.sock",
                f"--pid-file={self._socket_dir}/mysqld.pid",
                "--skip-grant-tables",
                "--innodb-buffer-pool-size=32M",
                *(["--user=root"] if os.geteuid() == 0 else []),
            ]
        return [
            _BINARIES["postgresql"][1],
            "-D",
            self.datadir,
            "-p",
            str(self.port),
            "-k",
            self._socket_dir,
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "shared_buffers=16MB",
        ]

    def start(self, timeout: float = 90) -> None:
        """Start the server and wait until it answers a query."""
        assert self._process is None, "already running"
        with open(self.log_path, "a") as log:
            self._process = subprocess.Popen(
                self._command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **self._as(),
            )
        engine = sqlalchemy.create_engine(self.url, poolclass=NullPool)
        deadline = time.monotonic() + timeout
        try:
            while True:
                if self._process.poll() is not None:
                    raise RuntimeError(f"{self.backend} server exited:\n{self.log()}")
                try:
                    with engine.connect() as conn:
                        conn.exec_driver_sql("SELECT 1")
                    return
                except sqlalchemy.exc.DBAPIError as exc:
                    if time.monotonic() > deadline:
                        message = f"{self.backend} server did not answer:\n{self.log()}"
                        raise RuntimeError(message) from exc
                    time.sleep(0.1)
        finally:
            engine.dispose()

    def kill(self) -> None:
        """Crash the server: SIGKILL to its whole process group, then reap it."""
        process = self._process
        if process is None:
            return
        self._process = None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        # PostgreSQL's backends are in the group too; wait until none is left
        # holding the shared memory a restart needs.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)

    def log(self) -> str:
        with open(self.log_path, errors="replace") as log:
            return log.read()[-4000:]


def _pg_user() -> pwd.struct_passwd | None:
    """The user PostgreSQL runs as: ``postgres`` when we are root, else ourselves."""
    return pwd.getpwnam("postgres") if os.geteuid() == 0 else None


@contextlib.contextmanager
def throwaway(backend: str) -> Iterator[Throwaway]:
    """A started private server of ``backend``, killed and deleted afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"placement-{backend}-") as directory:
        server = Throwaway(backend, directory)
        try:
            server.start()
            yield server
        finally:
            server.kill()
