"""A private three-node MariaDB Galera cluster and HAProxy in front of it.

Shared by ``tests/galera/`` and ``benchmarks/galera.py``. Every node is a
``mariadbd`` of its own with the Galera provider (Debian's ``galera-4``), a
data directory under one temporary directory, spare loopback ports for
clients, group communication (gcomm), incremental and full state transfer
(``rsync``), in its own process group so :meth:`Node.kill` is a real crash.
The machine's own MariaDB (port 3306) is never touched. As root the nodes
run as the ``mysql`` user, owner of the directory: rsync's daemon, which
receives a joiner's state, runs as ``nobody`` when started by root and
could not write a root-owned data directory.

The first node bootstraps the cluster (``--wsrep-new-cluster``); the others
join it and receive its state by rsync. Failure detection is tightened
(``evs.suspect_timeout`` 2 s, :data:`FAILURE_DETECTION`) so a killed node is
evicted in seconds, as operators tune it for fast failover.

:class:`HAProxy` runs ``haproxy`` as a child process on a generated
configuration (never the system service) with two TCP front-ends: one
balancing round-robin over the three nodes, one sending everything to node 0
with nodes 1 and 2 as backups (the usual Galera layout: one writer at a
time). Servers are checked every :data:`CHECK_INTERVAL` seconds; one marked
down has its sessions shut.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import sqlalchemy
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from tests.server import free_port

PROVIDER = "/usr/lib/galera/libgalera_smm.so"

#: Seconds the cluster takes to evict a node that stopped answering.
FAILURE_DETECTION = 2.0

#: Seconds between HAProxy's health checks of a node (down after two failures).
CHECK_INTERVAL = 0.5

_PROGRAMS = ("mariadb-install-db", "mariadbd", "rsync", "haproxy")

#: The user the nodes run as, when we are root (see the module docstring).
_USER = "mysql"
_AS_USER = [f"--user={_USER}"] if os.geteuid() == 0 else []


def missing() -> str | None:
    """Why a cluster cannot start on this machine, or None when it can."""
    if not os.path.exists(PROVIDER):
        return f"no Galera provider at {PROVIDER} (Debian package galera-4)"
    absent = [name for name in _PROGRAMS if shutil.which(name) is None]
    if absent:
        return f"no {', '.join(absent)} on this machine"
    return None


class Node:
    """One cluster member; :meth:`kill` crashes it, :meth:`start` brings it back."""

    def __init__(self, index: int, directory: str) -> None:
        self.index = index
        self.port = free_port()
        self.gcomm_port = free_port()
        self.ist_port = free_port()
        self.sst_port = free_port()
        self.directory = directory
        self.datadir = os.path.join(directory, "data")
        self.log_path = os.path.join(directory, "node.log")
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """The node's own URL (no database), for :func:`tests.dbutil.fresh_database_url`."""
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/"

    def command(self, peers: list[Node], *, bootstrap: bool) -> list[str]:
        address = ",".join(f"127.0.0.1:{peer.gcomm_port}" for peer in peers)
        options = ";".join(
            [
                f"gmcast.listen_addr=tcp://127.0.0.1:{self.gcomm_port}",
                f"ist.recv_addr=127.0.0.1:{self.ist_port}",
                "gcache.size=64M",
                "evs.suspect_timeout=PT2S",
                "evs.inactive_timeout=PT4S",
                "evs.keepalive_period=PT0.5S",
                "evs.inactive_check_period=PT0.5S",
                "evs.install_timeout=PT4S",
                "pc.wait_prim_timeout=PT30S",
            ]
        )
        return [
            "mariadbd",
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--port={self.port}",
            "--bind-address=127.0.0.1",
            f"--socket={self.directory}/mysqld.sock",
            f"--pid-file={self.directory}/mysqld.pid",
            "--skip-grant-tables",
            "--innodb-buffer-pool-size=48M",
            "--innodb-log-file-size=16M",
            "--innodb-flush-log-at-trx-commit=2",
            "--binlog-format=ROW",
            "--innodb-autoinc-lock-mode=2",
            "--max-connections=400",
            "--wsrep-on=ON",
            f"--wsrep-provider={PROVIDER}",
            "--wsrep-cluster-name=placement-test",
            f"--wsrep-cluster-address=gcomm://{'' if bootstrap else address}",
            f"--wsrep-node-name=node{self.index}",
            f"--wsrep-node-address=127.0.0.1:{self.gcomm_port}",
            f"--wsrep-node-incoming-address=127.0.0.1:{self.port}",
            f"--wsrep-provider-options={options}",
            "--wsrep-sst-method=rsync",
            f"--wsrep-sst-receive-address=127.0.0.1:{self.sst_port}",
            "--wsrep-slave-threads=2",
            *(["--wsrep-new-cluster"] if bootstrap else []),
            *_AS_USER,
        ]

    def start(self, peers: list[Node], *, bootstrap: bool = False, recover: bool = False) -> None:
        """Start the node (joining ``peers``); returns at once, see :meth:`wait_synced`.

        ``recover``: after a crash, first recover the position the node's
        InnoDB reached (``--wsrep-recover``, as Debian's ``galera_recovery``
        does before systemd starts a node), so it catches up by incremental
        transfer from a peer's cache instead of a full rsync, which blocks
        the donor's writes for its duration.
        """
        assert self._process is None, "already running"
        command = self.command(peers, bootstrap=bootstrap)
        if recover:
            command.append(f"--wsrep-start-position={self._recovered_position(command)}")
        with open(self.log_path, "a") as log:
            self._process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _recovered_position(self, command: list[str]) -> str:
        found = subprocess.run(
            [*command, "--wsrep-recover", "--disable-log-error"],
            capture_output=True,
            text=True,
            check=True,
        )
        for line in found.stderr.splitlines():
            if "WSREP: Recovered position:" in line:
                return line.split("Recovered position:", 1)[1].strip()
        raise RuntimeError(f"node{self.index}: no recovered position:\n{found.stderr[-2000:]}")

    def wait_synced(self, size: int, timeout: float = 90) -> None:
        """Until the node is Synced in a primary component of ``size`` nodes."""
        engine = sqlalchemy.create_engine(self.url, poolclass=NullPool)
        deadline = time.monotonic() + timeout
        try:
            while True:
                if self._process is None or self._process.poll() is not None:
                    raise RuntimeError(f"node{self.index} exited:\n{self.log()}")
                with contextlib.suppress(sqlalchemy.exc.DBAPIError):
                    if self.status(engine) == ("Synced", size):
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"node{self.index} did not sync:\n{self.log()}")
                time.sleep(0.2)
        finally:
            engine.dispose()

    @staticmethod
    def status(engine: sqlalchemy.Engine) -> tuple[str, int]:
        with engine.connect() as conn:
            found = dict(
                conn.exec_driver_sql(
                    "SHOW STATUS WHERE Variable_name IN"
                    " ('wsrep_local_state_comment', 'wsrep_cluster_size')"
                ).all()
            )
        return found["wsrep_local_state_comment"], int(found["wsrep_cluster_size"])

    def kill(self) -> None:
        """SIGKILL to the node's process group (its SST helpers too), then reap it."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    @property
    def running(self) -> bool:
        return self._process is not None

    def log(self) -> str:
        with open(self.log_path, errors="replace") as log:
            return log.read()[-4000:]


class Cluster:
    """Three nodes under one temporary directory."""

    def __init__(self, directory: str) -> None:
        self.nodes = [Node(i, os.path.join(directory, f"node{i}")) for i in range(3)]
        for node in self.nodes:
            os.makedirs(node.directory)
        _give(directory)
        _install(self.nodes[0].datadir, directory)
        for node in self.nodes[1:]:
            shutil.copytree(self.nodes[0].datadir, node.datadir, symlinks=True)
        _give(directory)

    def start(self) -> None:
        first, *others = self.nodes
        first.start(self.nodes, bootstrap=True)
        first.wait_synced(1)
        for count, node in enumerate(others, start=2):
            node.start(self.nodes)
            node.wait_synced(count)

    def restart(self, node: Node, *, wait: bool = True) -> None:
        """Bring a killed node back: it rejoins and catches up (IST, or SST)."""
        node.start(self.nodes, recover=True)
        if wait:
            node.wait_synced(len(self.nodes))

    def wait_evicted(self, node: Node, timeout: float = 30) -> None:
        """Until every other running node sees a cluster without ``node``."""
        others = [n for n in self.nodes if n is not node and n.running]
        for other in others:
            other.wait_synced(len(others), timeout)

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()


def _give(directory: str) -> None:
    """Hand ``directory`` to the nodes' user (see the module docstring)."""
    if _AS_USER:
        os.chmod(directory, 0o755)
        subprocess.run(["chown", "-R", f"{_USER}:", directory], check=True)


def _install(datadir: str, directory: str) -> None:
    command = [
        "mariadb-install-db",
        "--no-defaults",
        f"--datadir={datadir}",
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
        *_AS_USER,
    ]
    with open(os.path.join(directory, "install.log"), "a") as log:
        subprocess.run(command, check=True, stdout=log, stderr=subprocess.STDOUT)


class HAProxy:
    """HAProxy in front of ``cluster``: :attr:`round_robin` and :attr:`active_backup` ports."""

    def __init__(self, cluster: Cluster, directory: str) -> None:
        self.round_robin = free_port()
        self.active_backup = free_port()
        self.config_path = os.path.join(directory, "haproxy.cfg")
        self.log_path = os.path.join(directory, "haproxy.log")
        with open(self.config_path, "w") as config:
            config.write(self._config(cluster))
        with open(self.log_path, "a") as log:
            self._process: subprocess.Popen | None = subprocess.Popen(
                ["haproxy", "-db", "-f", self.config_path],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_for_port(self.active_backup, self._process)

    def url(self, port: int) -> str:
        return f"mysql+pymysql://root@127.0.0.1:{port}/"

    def _config(self, cluster: Cluster) -> str:
        interval = int(CHECK_INTERVAL * 1000)
        defaults = (
            f"    default-server inter {interval} fastinter {interval} downinter {interval}"
            " rise 2 fall 2 on-marked-down shutdown-sessions\n"
        )
        lines = [
            "global\n    maxconn 4000\n",
            "defaults\n    mode tcp\n    timeout connect 1s\n"
            "    timeout client 1h\n    timeout server 1h\n",
            f"listen round_robin\n    bind 127.0.0.1:{self.round_robin}\n    balance roundrobin\n",
            defaults,
            *(f"    server node{n.index} 127.0.0.1:{n.port} check\n" for n in cluster.nodes),
            f"listen active_backup\n    bind 127.0.0.1:{self.active_backup}\n",
            defaults,
            *(
                f"    server node{n.index} 127.0.0.1:{n.port} check{' backup' if n.index else ''}\n"
                for n in cluster.nodes
            ),
        ]
        return "".join(lines)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("haproxy exited")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"haproxy did not listen on {port}")


@contextlib.contextmanager
def running() -> Iterator[tuple[Cluster, HAProxy]]:
    """A started cluster and its HAProxy; everything killed and deleted afterwards."""
    directory = tempfile.mkdtemp(prefix="placement-galera-")
    cluster: Cluster | None = None
    proxy: HAProxy | None = None
    try:
        cluster = Cluster(directory)
        cluster.start()
        proxy = HAProxy(cluster, directory)
        yield cluster, proxy
    finally:
        if proxy is not None:
            proxy.stop()
        if cluster is not None:
            cluster.stop()
        if not os.environ.get("PLACEMENT_GALERA_KEEP"):
            shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def placement_database(cluster: Cluster) -> Iterator[list[str]]:
    """A new database at the latest schemas; yields its URL through each node.

    Made through node 0 (the DDL replicates), its schema from ``tables.py``
    as ``tests.rig`` makes MySQL databases; dropped afterwards.
    """
    from tests import dbutil, rig

    url = make_url(dbutil.fresh_database_url(cluster.nodes[0].url))
    try:
        rig.create_mysql_schema(url.render_as_string(hide_password=False))
        urls = [
            url.set(port=node.port).render_as_string(hide_password=False) for node in cluster.nodes
        ]
        for through_node in urls:
            _wait_until_stamped(through_node)
        yield urls
    finally:
        dbutil.drop_database(url.render_as_string(hide_password=False))


def _wait_until_stamped(url: str) -> None:
    """Wait until the node behind ``url`` has applied the schema's stamp.

    The stamp is a row written through node 0: another node applies it a moment
    after the commit, and an application started through it before then finds
    no Placement schema (seen in CI). A causal read waits for exactly that.
    """
    from placement.db import engine as db_engine
    from placement.db import migration

    engine = db_engine.engine_from_url(url)
    try:
        with engine.connect() as conn, db_engine.causal_reads(conn):
            conn.exec_driver_sql("SELECT 1")  # returns once the node has caught up
        assert migration.current_revision(engine) is not None, url
    finally:
        engine.dispose()


def through(url: str, port: int) -> str:
    """``url`` (a database on the cluster) through another port: a node, or HAProxy."""
    return make_url(url).set(port=port).render_as_string(hide_password=False)
