"""A real Nova cloud on our Placement, for tests that move real servers.

:func:`running` starts, on loopback ports under one temporary directory:

* Keystone (gunicorn, SQLite, fernet tokens, an in-memory token cache;
  the catalog is not cached, as it is filled in after start-up),
  bootstrapped with an ``admin`` user, a ``service`` project with the ``nova``
  and ``placement`` service users, and a catalog naming every service below;
* a private Prometheus (:mod:`tests.prometheus`) with one scrape target per
  compute host labelled ``fqdn=<host>``, empty until a scenario pushes series;
* our Placement (:func:`tests.server.gunicorn`, ``auth_strategy = keystone``,
  a migrated SQLite database), planning metric strategies on that Prometheus;
* stand-in image and network services (:mod:`tests.nova.stubs`);
* Nova: the compute API (gunicorn serving ``nova.wsgi.osapi_compute``),
  ``nova-conductor``, ``nova-scheduler`` and one ``nova-compute`` per host
  (``fake.FakeLiveMigrateDriver``), on API, cell0 and cell1 databases of
  their own on the machine's MariaDB, and a RabbitMQ node of their own on
  spare ports (never the machine's broker, which a test may restart);

and yields a :class:`Cloud`: the endpoints, an admin keystoneauth session,
adapters for the compute and placement APIs and helpers to boot servers.
Everything is stopped, the databases dropped and the directory removed when the
block ends. Nova and Keystone run from venvs of their own
(:mod:`tests.nova.novaenv`), built on first use; their databases start as
copies of templates migrated once per pair of venvs (:func:`made_templates`).

Run ``python -m tests.nova.cloud`` (with the project's venv) to start a cloud
by hand: it prints the endpoints and an openrc, and stops on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy
from keystoneauth1 import adapter as ksa_adapter
from keystoneauth1 import session as ksa_session
from keystoneauth1.identity import v3

from tests import dbutil, identity, rig, scratchvenv, server
from tests import prometheus as prom
from tests.clients import clientenv
from tests.nova import novaenv, stubs

HOSTS = ("compute1", "compute2", "compute3")
REGION = "RegionOne"
ADMIN_PASSWORD = "admin-secret"
NOVA_PASSWORD = "nova-secret"
#: ``tests.identity.authtoken_section`` is reused for Placement's middleware,
#: so Placement's service user is the one it names.
PLACEMENT_USER, PLACEMENT_PASSWORD = "placement", "secret"
COMPUTE_MICROVERSION = "2.95"
PLACEMENT_MICROVERSION = "1.39"
SHIM_DIR = str(Path(__file__).resolve().parent)
START_TIMEOUT_S = 180
#: Where an action plan has nothing left to do.
FINISHED_PLAN_STATES = ("SUCCEEDED", "FAILED", "CANCELLED", "SUPERSEDED")
#: Part of the templates' directory name: a change to how they are made makes new ones.
TEMPLATES_VERSION = 3
MYSQL_URL = os.environ.get("PLACEMENT_TEST_MYSQL_URL") or "mysql+pymysql://root@127.0.0.1:3306/"
DB_PREFIX = "nova_cloud_"
CELL0_UUID = "00000000-0000-0000-0000-000000000000"  # Nova's fixed uuid for cell0


class CloudError(RuntimeError):
    """The cloud did not come up, or a server did not reach its state."""


# -- processes ------------------------------------------------------------------------------


@dataclass
class Processes:
    """The cloud's own processes, each in a session of its own, logging to a file."""

    logdir: Path
    running: dict[str, subprocess.Popen] = field(default_factory=dict)
    #: How each was started: argv, environment, directory (to start it again).
    commands: dict[str, tuple[Sequence[str], dict[str, str], Path]] = field(default_factory=dict)

    def start(
        self, name: str, argv: Sequence[str], env: dict[str, str], cwd: Path, mode: str = "w"
    ) -> None:
        self.commands[name] = (argv, env, cwd)
        with open(self.logdir / f"{name}.log", mode) as log:
            self.running[name] = subprocess.Popen(
                list(argv),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )

    @contextlib.contextmanager
    def stopped(self, name: str) -> Iterator[None]:
        """``name`` stopped (SIGTERM, then SIGKILL) for the block, started again as it
        was after it (its log goes on); the caller waits for it to answer."""
        process = self.running.pop(name)
        _terminate(process)
        try:
            yield
        finally:
            self.start(name, *self.commands[name], mode="a")

    def log_tail(self, name: str, size: int = 4000) -> str:
        path = self.logdir / f"{name}.log"
        return path.read_text(errors="replace")[-size:] if path.exists() else ""

    def check(self) -> None:
        """Fail with its log if any process has exited (and Keystone's, which every
        other process asks first: a refused token is the usual reason)."""
        for name, process in self.running.items():
            if process.poll() is not None:
                keystone = "" if name == "keystone" else self.log_tail("keystone", 3000)
                raise CloudError(
                    f"{name} exited with {process.returncode}:\n{self.log_tail(name)}"
                    + (f"\n---- keystone ----\n{keystone}" if keystone else "")
                )

    def stop_all(self) -> None:
        for process in reversed(self.running.values()):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.running.values():
            _terminate(process, deadline - time.monotonic())
        self.running.clear()


def _terminate(process: subprocess.Popen, grace: float = 15) -> None:
    """SIGTERM ``process``'s session (again, if already sent), SIGKILL after ``grace``."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=max(0.1, grace))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _run(argv: Sequence[str], env: dict[str, str], log: Path, timeout: float = 300) -> None:
    """Run a set-up command, appending its output to ``log``; fail with it."""
    with open(log, "a") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        result = subprocess.run(
            list(argv), stdout=out, stderr=subprocess.STDOUT, env=env, timeout=timeout
        )
    if result.returncode != 0:
        raise CloudError(f"{' '.join(argv)} failed:\n{log.read_text()[-4000:]}")


def _openrc_variables(openrc: str) -> dict[str, str]:
    """The variables an openrc's ``export NAME=value`` lines set."""
    found = (line.removeprefix("export ").partition("=") for line in openrc.splitlines())
    return {name: value for name, _, value in found if name}


def clean_env() -> dict[str, str]:
    """Our environment without OpenStack settings or our venv's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OS_", "PYTHON", "VIRTUAL_ENV", "PIP_"))
    }
    env["PYTHONUNBUFFERED"] = "1"
    return env


def wait_for_url(url: str, procs: Processes, timeout: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs.check()
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError as error:
            if error.code < 500:  # 300 Multiple Choices and 401 count as up
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise CloudError(f"{url} did not answer within {timeout} s")


def _gunicorn(venv: Path, port: int, workers: int) -> list[str]:
    """Gunicorn of ``venv`` serving :mod:`wsgi_shim` (``$CLOUD_WSGI_APP``) on ``port``."""
    return [
        str(venv / "bin" / "gunicorn"),
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--timeout",
        "120",
        "--graceful-timeout",
        "5",
        "--pythonpath",
        SHIM_DIR,
        "wsgi_shim:application",
    ]


# -- RabbitMQ -------------------------------------------------------------------------------


#: Debian's RabbitMQ server script, run as our own child (not the wrapper that
#: switches to the rabbitmq user and the machine's node).
RABBITMQ_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"


def _start_broker(workdir: Path, procs: Processes) -> str:
    """A RabbitMQ node of the cloud's own (``rabbitmq``), on spare ports with its data
    under ``workdir/rabbitmq``, never the machine's broker; its transport URL."""
    base = workdir / "rabbitmq"
    (base / "mnesia").mkdir(parents=True)
    (base / "log").mkdir()
    (base / "enabled_plugins").write_text("[].\n")
    port = server.free_port()
    env = dict(
        clean_env(),
        RABBITMQ_NODENAME=f"nova-cloud-{uuid.uuid4().hex[:8]}@localhost",
        RABBITMQ_NODE_PORT=str(port),
        RABBITMQ_DIST_PORT=str(server.free_port()),
        RABBITMQ_MNESIA_BASE=str(base / "mnesia"),
        RABBITMQ_LOG_BASE=str(base / "log"),
        RABBITMQ_ENABLED_PLUGINS_FILE=str(base / "enabled_plugins"),
        RABBITMQ_PID_FILE=str(base / "pid"),
        RABBITMQ_CONFIG_FILE=str(base / "rabbitmq"),
    )
    procs.start("rabbitmq", [RABBITMQ_SERVER], env, base)
    wait_for_port(port, procs)
    return f"rabbit://guest:guest@127.0.0.1:{port}/"


def wait_for_port(port: int, procs: Processes, timeout: float = START_TIMEOUT_S) -> None:
    """Until something accepts connections on 127.0.0.1:``port`` (the cloud's
    processes checked alive meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs.check()
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.3)
    raise CloudError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


# -- templates ------------------------------------------------------------------------------


def made_templates() -> Path:
    """Migrated databases and keys that every cloud starts from as copies.

    Made once per pair of venvs (and kept beside them): Keystone's database
    after ``db_sync`` and ``bootstrap`` (no catalog: :func:`register` adds it),
    its fernet and credential keys; dumps of Nova's API database and of a cell
    database (``nova_cell.sql``, loaded as cell0 and cell1) after their
    migrations, made on MariaDB in scratch databases dropped afterwards.
    """
    keystone, nova = novaenv.keystone_venv(), novaenv.nova_venv()
    directory = novaenv.CACHE_ROOT / f"templates-{TEMPLATES_VERSION}-{keystone.name}-{nova.name}"
    if (directory / scratchvenv.COMPLETE_MARKER).is_file():
        return directory
    with open(str(directory) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits for the first's templates
        if not (directory / scratchvenv.COMPLETE_MARKER).is_file():
            shutil.rmtree(directory, ignore_errors=True)
            with tempfile.TemporaryDirectory(prefix="nova-cloud-templates-") as scratch:
                _make_templates(Path(scratch), keystone, nova)
                shutil.copytree(Path(scratch) / "templates", directory)
            (directory / scratchvenv.COMPLETE_MARKER).write_text("complete\n")
    return directory


def _make_templates(scratch: Path, keystone_venv: Path, nova_venv: Path) -> None:
    (scratch / "logs").mkdir()
    out = scratch / "templates"
    out.mkdir()
    conf = _keystone_conf(scratch)
    manage = [str(keystone_venv / "bin" / "keystone-manage"), "--config-file", str(conf)]
    log = scratch / "logs" / "templates.log"
    env = clean_env()
    _run([*manage, "db_sync"], env, log)
    for setup in ("fernet_setup", "credential_setup"):
        _run([*manage, setup, "--keystone-user", "root", "--keystone-group", "root"], env, log)
    _run([*manage, "bootstrap", "--bootstrap-password", ADMIN_PASSWORD], env, log)
    shutil.copy(conf.parent / "keystone.db", out)
    for keys in ("fernet-keys", "credential-keys"):
        shutil.copytree(conf.parent / keys, out / keys)
    # Kept in the file: readers no longer hold off writers (nor writers readers).
    with contextlib.closing(sqlite3.connect(out / "keystone.db")) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
    api, cell = (dbutil.fresh_database_url(MYSQL_URL, prefix=DB_PREFIX) for _ in range(2))
    try:
        nova_conf = scratch / "nova-template.conf"
        nova_conf.write_text(
            f"[api_database]\nconnection = {api}\n[database]\nconnection = {cell}\n"
        )
        nova_manage = [str(nova_venv / "bin" / "nova-manage"), "--config-file", str(nova_conf)]
        _run([*nova_manage, "api_db", "sync"], _nova_env(), log)
        _run([*nova_manage, "db", "sync", "--local_cell"], _nova_env(), log)
        for url, dump in ((api, "nova_api.sql"), (cell, "nova_cell.sql")):
            with open(out / dump, "w") as sql:
                subprocess.run(
                    [*_mysql_client(url, "mysqldump"), "--skip-comments"],
                    stdout=sql,
                    check=True,
                    timeout=300,
                )
    finally:
        dbutil.drop_database(api)
        dbutil.drop_database(cell)


def _mysql_client(url: str, program: str = "mysql") -> list[str]:
    """``mysql`` (or ``mysqldump``) on the database of ``url``."""
    parsed = sqlalchemy.engine.make_url(url)
    argv = [program, "--protocol=tcp", "-h", parsed.host or "127.0.0.1"]
    argv += ["-P", str(parsed.port or 3306), "-u", parsed.username or "root"]
    if parsed.password:
        argv.append(f"-p{parsed.password}")
    return [*argv, str(parsed.database)]


# -- Keystone -------------------------------------------------------------------------------


def _keystone_conf(workdir: Path) -> Path:
    confdir = workdir / "keystone"
    confdir.mkdir()
    conf = confdir / "keystone.conf"
    conf.write_text(
        textwrap.dedent(f"""\
            [DEFAULT]
            debug = false
            [database]
            connection = {_sqlite(confdir / "keystone.db")}
            [token]
            provider = fernet
            [fernet_tokens]
            key_repository = {confdir}/fernet-keys
            [fernet_receipts]
            key_repository = {confdir}/fernet-keys
            [credential]
            key_repository = {confdir}/credential-keys
            [cache]
            enabled = true
            backend = dogpile.cache.memory
            [catalog]
            # The catalog is filled in after start-up (register); each worker's
            # memory cache would keep handing out the empty one it saw first.
            caching = false
            """)
    )
    return conf


def start_keystone(workdir: Path, procs: Processes, port: int, templates: Path) -> None:
    """Keystone on copies of the template database and keys (see :func:`made_templates`)."""
    venv = novaenv.keystone_venv()
    conf = _keystone_conf(workdir)
    shutil.copy(templates / "keystone.db", conf.parent)
    for keys in ("fernet-keys", "credential-keys"):
        shutil.copytree(templates / keys, conf.parent / keys)
    env = dict(
        clean_env(),
        OS_KEYSTONE_CONFIG_DIR=str(conf.parent),
        OS_KEYSTONE_CONFIG_FILES="keystone.conf",
        CLOUD_WSGI_APP="keystone.wsgi.api:application",
        CLOUD_WSGI_ARGV=json.dumps(["keystone"]),
    )
    # One worker: Keystone's SQLite database then never has two writers at once.
    procs.start("keystone", _gunicorn(venv, port, workers=1), env, conf.parent)
    wait_for_url(f"http://127.0.0.1:{port}/v3", procs)


def admin_session(keystone_url: str) -> ksa_session.Session:
    auth = v3.Password(
        auth_url=f"{keystone_url}/v3",
        username="admin",
        password=ADMIN_PASSWORD,
        project_name="admin",
        user_domain_id="default",
        project_domain_id="default",
    )
    return ksa_session.Session(auth=auth)


def register(session: ksa_session.Session, keystone_url: str, services: dict[str, str]) -> None:
    """The service project and users, and the catalog: ``{type: url}``."""
    keystone = ksa_adapter.Adapter(session, endpoint_override=f"{keystone_url}/v3")
    keystone.post("/regions", json={"region": {"id": REGION}})
    roles = {r["name"]: r["id"] for r in keystone.get("/roles").json()["roles"]}
    project = keystone.post(
        "/projects", json={"project": {"name": "service", "domain_id": "default"}}
    ).json()["project"]["id"]
    for name, password, role_names in (
        ("nova", NOVA_PASSWORD, ("admin", "service")),
        (PLACEMENT_USER, PLACEMENT_PASSWORD, ("service",)),
    ):
        user = keystone.post(
            "/users", json={"user": {"name": name, "password": password, "domain_id": "default"}}
        ).json()["user"]["id"]
        for role in role_names:
            keystone.put(f"/projects/{project}/users/{user}/roles/{roles[role]}")
    for service_type, url in services.items():
        service = keystone.post(
            "/services", json={"service": {"type": service_type, "name": service_type}}
        ).json()["service"]["id"]
        for interface in ("public", "internal", "admin"):
            keystone.post(
                "/endpoints",
                json={
                    "endpoint": {
                        "service_id": service,
                        "interface": interface,
                        "url": url,
                        "region_id": REGION,
                    }
                },
            )


# -- Nova -----------------------------------------------------------------------------------


def _auth_options(keystone_url: str) -> str:
    return textwrap.dedent(f"""\
        auth_type = password
        auth_url = {keystone_url}/v3
        username = nova
        password = {NOVA_PASSWORD}
        project_name = service
        user_domain_name = Default
        project_domain_name = Default
        region_name = {REGION}
        valid_interfaces = public
        """)


def _nova_conf(workdir: Path, keystone_url: str, transport_url: str) -> Path:
    """``nova.conf`` (shared by every service; no database) in ``workdir/nova``."""
    confdir = workdir / "nova"
    confdir.mkdir()
    shutil.copy(novaenv.nova_venv() / "etc" / "nova" / "api-paste.ini", confdir)
    auth = _auth_options(keystone_url)
    sections = {
        "DEFAULT": textwrap.dedent(f"""\
            transport_url = {transport_url}
            compute_driver = fake.FakeLiveMigrateDriver
            state_path = {confdir}/state
            my_ip = 127.0.0.1
            host = controller
            debug = true
            # Periodic tasks (the scheduler's host discovery) start at once, not
            # after up to a minute's random delay.
            periodic_fuzzy_delay = 0
            """),
        "api": "auth_strategy = keystone\n",
        "wsgi": f"api_paste_config = {confdir}/api-paste.ini\n",
        "oslo_concurrency": f"lock_path = {confdir}/locks\n",
        "quota": "instances = -1\ncores = -1\nram = -1\n",
        "conductor": "workers = 1\n",
        # The scheduler maps each new compute host itself (no nova-manage discover_hosts).
        "scheduler": "workers = 1\ndiscover_hosts_in_cells_interval = 2\n",
        "keystone_authtoken": f"www_authenticate_uri = {keystone_url}/v3\n{auth}",
        "placement": auth,
        "neutron": auth,
        "glance": f"region_name = {REGION}\nvalid_interfaces = public\n",
        "cinder": f"os_region_name = {REGION}\n",
        # Back within seconds of a broker restart (test_faults.py), not after backing
        # off for up to half a minute per try.
        "oslo_messaging_rabbit": "heartbeat_timeout_threshold = 0\nrabbit_retry_interval = 1\n"
        "rabbit_retry_backoff = 1\nrabbit_interval_max = 2\n",
    }
    conf = confdir / "nova.conf"
    conf.write_text("".join(f"[{name}]\n{body}" for name, body in sections.items()))
    return conf


def _sqlite(path: Path) -> str:
    """Keystone's SQLite URL: a writer waits up to a minute for the lock (WAL mode)."""
    return f"sqlite:///{path}?timeout=60"


def _nova_db_conf(confdir: Path, api: str, cell1: str) -> Path:
    """``nova-db.conf``: the API and cell1 databases (never given to a compute)."""
    conf = confdir / "nova-db.conf"
    conf.write_text(f"[api_database]\nconnection = {api}\n[database]\nconnection = {cell1}\n")
    return conf


def _compute_conf(confdir: Path, host: str) -> Path:
    state = confdir / host
    (state / "instances").mkdir(parents=True)
    conf = confdir / f"{host}.conf"
    conf.write_text(
        f"[DEFAULT]\nhost = {host}\nstate_path = {state}\ninstances_path = {state}/instances\n"
        f"[oslo_concurrency]\nlock_path = {state}/locks\n"
    )
    return conf


def _nova_env() -> dict[str, str]:
    env = clean_env()
    env["OS_NOVA_DISABLE_EVENTLET_PATCHING"] = "true"  # Nova's threading mode
    return env


@contextlib.contextmanager
def _nova_databases(
    workdir: Path, keystone_url: str, transport_url: str, templates: Path
) -> Iterator[None]:
    """Write Nova's configuration and load its databases; drop them after.

    Nova's API, cell0 and cell1 databases are new databases on MariaDB
    (``$PLACEMENT_TEST_MYSQL_URL``'s server, else 127.0.0.1:3306 as root), each
    loaded from a template's dump. The two cell mappings ``nova-manage cell_v2
    map_cell0`` and ``create_cell`` would write are inserted directly: a
    ``nova-manage`` costs seconds of imports.
    """
    urls: list[str] = []
    try:
        for _ in range(3):
            urls.append(dbutil.fresh_database_url(MYSQL_URL, prefix=DB_PREFIX))
        api, cell0, cell1 = urls
        for url, dump in (
            (api, "nova_api.sql"),
            (cell0, "nova_cell.sql"),
            (cell1, "nova_cell.sql"),
        ):
            with open(templates / dump) as sql:
                subprocess.run(_mysql_client(url), stdin=sql, check=True, timeout=300)
        conf = _nova_conf(workdir, keystone_url, transport_url)
        _nova_db_conf(conf.parent, api, cell1)
        engine = sqlalchemy.create_engine(api, poolclass=sqlalchemy.pool.NullPool)
        with engine.begin() as connection:
            connection.execute(
                sqlalchemy.text(
                    "INSERT INTO cell_mappings (created_at, uuid, name, transport_url,"
                    " database_connection, disabled) VALUES (NOW(), :uuid, :name, :mq, :db, 0)"
                ),
                [
                    {"uuid": CELL0_UUID, "name": "cell0", "mq": "none:///", "db": cell0},
                    {
                        "uuid": str(uuid.uuid4()),
                        "name": "cell1",
                        "mq": transport_url,
                        "db": cell1,
                    },
                ],
            )
        engine.dispose()
        yield
    finally:
        for url in urls:
            dbutil.drop_database(url)


def _start_nova(workdir: Path, procs: Processes, api_port: int) -> str:
    """Start Nova's services on the databases :func:`_nova_databases` made."""
    venv = novaenv.nova_venv()
    confdir = workdir / "nova"
    conf, db_conf = confdir / "nova.conf", confdir / "nova-db.conf"
    env = _nova_env()
    configs = ["--config-file", str(conf), "--config-file", str(db_conf)]
    for binary in ("nova-conductor", "nova-scheduler"):
        procs.start(binary, [str(venv / "bin" / binary), *configs], env, confdir)
    api_env = dict(
        env,
        OS_NOVA_CONFIG_DIR=str(confdir),
        OS_NOVA_CONFIG_FILES="api-paste.ini;nova.conf;nova-db.conf",
        CLOUD_WSGI_APP="nova.wsgi.osapi_compute:application",
        CLOUD_WSGI_ARGV=json.dumps(["nova-api"]),
    )
    procs.start("nova-api", _gunicorn(venv, api_port, workers=2), api_env, confdir)
    # nova-compute through compute_shim.py: hosts of 16 vCPUs and 64 GiB, not 1,000 and 800.
    compute = [str(venv / "bin" / "python"), str(Path(SHIM_DIR) / "compute_shim.py")]
    for host in HOSTS:  # no database for a compute: nova.conf and its own file only
        host_conf = _compute_conf(confdir, host)
        argv = [*compute, "--config-file", str(conf), "--config-file", str(host_conf)]
        procs.start(host, argv, env, confdir)
    compute_url = f"http://127.0.0.1:{api_port}"
    wait_for_url(compute_url + "/", procs)
    return compute_url


# -- appliers -------------------------------------------------------------------------------

#: Our applier's and audit runner's console scripts, beside the interpreter running the tests.
APPLIER = Path(sys.executable).parent / "placement-applier"
AUDIT_RUNNER = Path(sys.executable).parent / "placement-audit-runner"


@dataclass
class Applier:
    """A ``placement-applier`` (:meth:`Cloud.start_applier`) or ``placement-audit-runner``
    (:meth:`Cloud.start_audit_runner`) of the cloud."""

    name: str
    process: subprocess.Popen
    log: Path

    def kill(self) -> None:
        """SIGKILL: no action finishes, no lease is released."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """SIGTERM (running actions finish), SIGKILL after 30 s."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, size: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-size:] if self.log.exists() else ""


# -- the cloud ------------------------------------------------------------------------------


@dataclass
class Cloud:
    """A running cloud: endpoints, an admin session, and helpers."""

    workdir: Path
    keystone_url: str
    placement_url: str
    compute_url: str
    stubs: stubs.Stubs
    session: ksa_session.Session
    procs: Processes
    timings: dict[str, float]
    #: Where our Placement reads measured load (``[prometheus_client]``): push series here.
    prometheus: prom.Prometheus
    hosts: tuple[str, ...] = HOSTS
    appliers: list[Applier] = field(default_factory=list)

    @property
    def compute(self) -> ksa_adapter.Adapter:
        """Nova's API as admin, at :data:`COMPUTE_MICROVERSION`."""
        return ksa_adapter.Adapter(
            self.session,
            service_type="compute",
            interface="public",
            region_name=REGION,
            default_microversion=COMPUTE_MICROVERSION,
        )

    @property
    def placement(self) -> ksa_adapter.Adapter:
        """Our Placement as admin, at :data:`PLACEMENT_MICROVERSION`."""
        return ksa_adapter.Adapter(
            self.session,
            service_type="placement",
            interface="public",
            region_name=REGION,
            default_microversion=PLACEMENT_MICROVERSION,
        )

    @property
    def watcher(self) -> ksa_adapter.Adapter:
        """Our ``/v1`` (Watcher's API, served by our Placement) as admin: paths ``/v1/...``."""
        return ksa_adapter.Adapter(
            self.session, service_type="infra-optim", endpoint_override=self.placement_url
        )

    def start_applier(
        self, name: str, *, lease_seconds: float = 30.0, applier_options: str = ""
    ) -> Applier:
        """A ``placement-applier`` on our Placement's database with ``executor = nova``,
        reaching Nova as admin through Keystone; ``applier_options`` are more lines of
        its ``[watcher_applier]``. Stopped with the cloud if still running."""
        conf = (
            "[watcher_applier]\nexecutor = nova\nnova_poll_interval = 0.3\n"
            + applier_options
            + textwrap.dedent(f"""
                [watcher_clients_auth]
                auth_type = password
                auth_url = {self.keystone_url}/v3
                username = admin
                password = {ADMIN_PASSWORD}
                project_name = admin
                user_domain_id = default
                project_domain_id = default
                [nova_client]
                region_name = {REGION}
                endpoint_type = public
                """)
        )
        return self._start_daemon(APPLIER, name, conf, "--lease-seconds", str(lease_seconds))

    def start_audit_runner(self, name: str) -> Applier:
        """A ``placement-audit-runner`` on our Placement's database: CONTINUOUS audits
        run, planned on the cloud's Prometheus as the API plans ONESHOT ones."""
        conf = "[watcher_applier]\nexecutor = nova\n" + measured_sections(self.prometheus)
        return self._start_daemon(AUDIT_RUNNER, name, conf)

    def _start_daemon(self, program: Path, name: str, conf_text: str, *argv: str) -> Applier:
        """``program`` on our Placement's database with ``conf_text`` besides, polling
        every 0.2 s, logging to ``logs/<name>.log``; stopped with the cloud."""
        confdir = self.workdir / "appliers"
        confdir.mkdir(exist_ok=True)
        conf = confdir / f"{name}.conf"
        database = f"[placement_database]\nconnection = {placement_database(self.workdir)}\n"
        conf.write_text(database + conf_text)
        command = [str(program), "--config-file", str(conf), *argv, "--poll-interval", "0.2"]
        with open(self.workdir / "logs" / f"{name}.log", "w") as log:
            process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=clean_env(),
                start_new_session=True,
            )
        daemon = Applier(name, process, self.workdir / "logs" / f"{name}.log")
        self.appliers.append(daemon)
        return daemon

    @contextlib.contextmanager
    def down(self, name: str) -> Iterator[None]:
        """``nova-api``, ``keystone`` or the cloud's ``rabbitmq`` stopped for the block
        (a restart, a failover), started again after it and waited for until it
        answers."""
        with self.procs.stopped(name):
            yield
        if name == "rabbitmq":
            wait_for_port(int(self.procs.commands[name][1]["RABBITMQ_NODE_PORT"]), self.procs)
            return
        url = {"nova-api": f"{self.compute_url}/", "keystone": f"{self.keystone_url}/v3"}[name]
        wait_for_url(url, self.procs)

    def clear(self, timeout: float = 180) -> None:
        """Back to an empty cloud for a suite that assumes one: every server deleted,
        every compute service enabled, no plan left to finish (RECOMMENDED ones
        cancelled; ONGOING ones waited for), no allocation left behind, no series in
        Prometheus, every compute service up."""
        deadline = time.monotonic() + timeout
        for found in self.compute.get("/servers?all_tenants=1").json()["servers"]:
            self.compute.delete(f"/servers/{found['id']}", raise_exc=False)
        for service in self.compute.get("/os-services?binary=nova-compute").json()["services"]:
            if service["status"] != "enabled":
                self.compute.put(f"/os-services/{service['id']}", json={"status": "enabled"})
        while self.compute.get("/servers?all_tenants=1").json()["servers"] or self._plans_left():
            if time.monotonic() > deadline:
                raise CloudError("the cloud did not clear: servers or plans are left")
            time.sleep(1)
        self._drop_leftover_allocations()
        self.prometheus.delete_series('{__name__=~".+"}')
        self.wait_for_computes()  # every compute up again (after a broker restart, say)

    def _drop_leftover_allocations(self) -> None:
        """With every server gone, what is still allocated on a compute node is Nova's
        leftover (a migration that ended in error keeps its consumer's allocations):
        deleted, as ``nova-manage placement audit --delete`` deletes orphans."""
        for hypervisor in self.hypervisors():
            path = f"/resource_providers/{hypervisor['id']}/allocations"
            for consumer in self.placement.get(path).json()["allocations"]:
                self.placement.delete(f"/allocations/{consumer}")

    def _plans_left(self) -> bool:
        """Whether a plan is unfinished; a RECOMMENDED or PENDING one is cancelled."""
        plans = self.watcher.get("/v1/action_plans?limit=1000").json()["action_plans"]
        left = [plan for plan in plans if plan["state"] not in FINISHED_PLAN_STATES]
        for plan in left:
            if plan["state"] in ("RECOMMENDED", "PENDING"):
                patch = [{"op": "replace", "path": "/state", "value": "CANCELLED"}]
                self.watcher.patch(f"/v1/action_plans/{plan['uuid']}", json=patch)
        return bool(left)

    def openstack(self, *args: str, timeout: float = 120) -> str:
        """Run the real ``openstack`` command (python-openstackclient with
        python-watcherclient, :mod:`tests.clients.clientenv`) as admin through
        Keystone's catalog; its standard output (a failure fails the test)."""
        venv = clientenv.ensure_client_venv()
        env = dict(clean_env(), **_openrc_variables(self.openrc()))
        result = subprocess.run(
            [str(venv / "bin" / "openstack"), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            raise CloudError(f"openstack {' '.join(args)}: {result.stdout}{result.stderr}")
        return result.stdout

    def openrc(self) -> str:
        return textwrap.dedent(f"""\
            export OS_AUTH_URL={self.keystone_url}/v3
            export OS_IDENTITY_API_VERSION=3
            export OS_USERNAME=admin
            export OS_PASSWORD={ADMIN_PASSWORD}
            export OS_PROJECT_NAME=admin
            export OS_USER_DOMAIN_NAME=Default
            export OS_PROJECT_DOMAIN_NAME=Default
            export OS_REGION_NAME={REGION}
            export OS_INTERFACE=public
            """)

    def create_flavor(self, name: str, vcpus: int, ram_mb: int, disk_gb: int) -> str:
        body = {"flavor": {"name": name, "vcpus": vcpus, "ram": ram_mb, "disk": disk_gb}}
        return self.compute.post("/flavors", json=body).json()["flavor"]["id"]

    def boot(
        self, name: str, flavor_id: str, *, wait: bool = True, host: str | None = None
    ) -> dict[str, Any]:
        """Create a server without networks (on ``host``, which the scheduler checks,
        when given); wait for ACTIVE unless told not to."""
        body: dict[str, Any] = {
            "server": {
                "name": name,
                "flavorRef": flavor_id,
                "imageRef": stubs.IMAGE_ID,
                "networks": "none",
            }
        }
        if host is not None:
            body["server"]["host"] = host  # 2.74
        response = self.compute.post("/servers", json=body, raise_exc=False)
        if response.status_code != 202:
            raise CloudError(f"boot {name}: {response.status_code} {response.text}")
        server_id = response.json()["server"]["id"]
        return self.wait_for_status(server_id, "ACTIVE") if wait else {"id": server_id}

    def server(self, server_id: str) -> dict[str, Any]:
        return self.compute.get(f"/servers/{server_id}").json()["server"]

    def wait_for_status(self, server_id: str, status: str, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.server(server_id)
            if found["status"] == status:
                return found
            if found["status"] == "ERROR" and status != "ERROR":
                raise CloudError(f"server {server_id} went to ERROR: {found.get('fault')}")
            if time.monotonic() > deadline:
                raise CloudError(f"server {server_id} is {found['status']}, not {status}")
            time.sleep(0.3)

    def hypervisors(self) -> list[dict[str, Any]]:
        """Every hypervisor with its details and usage, at 2.87 (2.88 drops the usage)."""
        return self.compute.get("/os-hypervisors/detail", microversion="2.87").json()["hypervisors"]

    def wait_for_computes(self, timeout: float = START_TIMEOUT_S) -> None:
        """Until each host's compute service is up and its node mapped and fully reported.

        A compute writes its provider's inventory to Placement before it saves its
        node's usage in Nova's database; a server scheduled in between fails in
        the scheduler's weighers (its host state has no allocation ratios yet).
        So wait for the usage (``free_disk_gb``) too, not only for the provider.
        """
        deadline = time.monotonic() + timeout
        while True:
            self.procs.check()
            services = self.compute.get("/os-services?binary=nova-compute").json()["services"]
            up = {s["host"] for s in services if s["state"] == "up"}
            reported = {
                h["hypervisor_hostname"]  # mapped to cell1 by the scheduler's discovery
                for h in self.hypervisors()
                if h.get("free_disk_gb") is not None
            }
            providers = self.placement.get("/resource_providers").json()["resource_providers"]
            with_inventory = {
                p["name"]
                for p in providers
                if self.placement.get(f"/resource_providers/{p['uuid']}/inventories").json()[
                    "inventories"
                ]
            }
            if set(self.hosts) <= up & reported & with_inventory:
                return
            state = (
                f"computes up {sorted(up)}, reported {sorted(reported)},"
                f" with inventory {sorted(with_inventory)}"
            )
            with open(self.workdir / "logs" / "startup.log", "a") as log:
                log.write(f"waiting: {state}\n")
            if time.monotonic() > deadline:
                raise CloudError(state)
            time.sleep(1)


@dataclass
class _Phases:
    """How long each step of the start-up took, also written to ``logs/startup.log``."""

    log: Path
    seconds: dict[str, float] = field(default_factory=dict)

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.done(name, started)

    def done(self, name: str, started: float) -> None:
        self.seconds[name] = time.monotonic() - started
        with open(self.log, "a") as log:
            log.write(f"{name}: {self.seconds[name]:.1f} s\n")


@contextlib.contextmanager
def running(workdir: str | None = None) -> Iterator[Cloud]:
    """Start the whole cloud; stop it and clean up when the block ends.

    ``$NOVA_CLOUD_KEEP`` keeps the directory (logs, configuration, Keystone's
    database) afterwards; Nova's databases go regardless.
    """
    root = Path(workdir or tempfile.mkdtemp(prefix="nova-cloud-"))
    if workdir and root.exists() and any(root.iterdir()):
        raise CloudError(f"{root} is not empty")
    (root / "logs").mkdir(parents=True, exist_ok=True)
    procs = Processes(root / "logs")
    phase = _Phases(root / "logs" / "startup.log")
    started = time.monotonic()
    keystone_port, api_port = server.free_port(), server.free_port()
    keystone_url = f"http://127.0.0.1:{keystone_port}"
    try:
        with contextlib.ExitStack() as stack:
            with phase("venvs and templates"):
                templates = made_templates()
            stack.callback(procs.stop_all)  # before the databases go
            with phase("broker and nova databases"):
                transport_url = _start_broker(root, procs)
                stack.enter_context(_nova_databases(root, keystone_url, transport_url, templates))
            with phase("keystone"):
                start_keystone(root, procs, keystone_port, templates)
            fakes = stack.enter_context(stubs.serving())
            with phase("prometheus"):
                measured = stack.enter_context(_prometheus())
            with phase("placement"):
                placement_url = stack.enter_context(_placement(root, keystone_url, measured))
            session = admin_session(keystone_url)
            register(
                session,
                keystone_url,
                {
                    "identity": f"{keystone_url}/v3",
                    "placement": placement_url,
                    "compute": f"http://127.0.0.1:{api_port}/v2.1",
                    "image": fakes.image_url,
                    "network": fakes.network_url,
                    # Our /v1 is Watcher's API: `openstack optimize` finds it here.
                    "infra-optim": placement_url,
                },
            )
            session.invalidate()  # a new token carries the new catalog
            with phase("nova services"):
                compute_url = _start_nova(root, procs, api_port)
            cloud = Cloud(
                workdir=root,
                keystone_url=keystone_url,
                placement_url=placement_url,
                compute_url=compute_url,
                stubs=fakes,
                session=session,
                procs=procs,
                timings=phase.seconds,
                prometheus=measured,
            )
            with phase("computes"):
                cloud.wait_for_computes()
            phase.done("start-up", started)
            try:
                yield cloud
            finally:
                for applier in cloud.appliers:
                    applier.stop()
    finally:
        if not os.environ.get("NOVA_CLOUD_KEEP"):
            shutil.rmtree(root, ignore_errors=True)


def placement_database(workdir: Path) -> str:
    """Our Placement's database in the cloud's directory."""
    return f"sqlite:///{workdir}/placement.db"


def _prometheus() -> contextlib.AbstractContextManager[prom.Prometheus]:
    """A private Prometheus knowing each compute host by its ``fqdn`` label, as the
    metric strategies find a node's series; no series until a scenario pushes them."""
    if not prom.available():
        raise CloudError(
            f"{prom.PROMETHEUS} is missing: the cloud's Placement plans metric strategies"
            " on a private Prometheus (apt-get install prometheus; .ci/run installs it)"
        )
    # Ports nothing listens on (privileged, unused): a node exporter on this machine's
    # 9100 would otherwise be scraped into compute1's series.
    targets = [
        prom.Target(f"127.0.0.1:{1 + index}", {"fqdn": host}) for index, host in enumerate(HOSTS)
    ]
    return prom.prometheus(targets)


def measured_sections(measured: prom.Prometheus) -> str:
    """Where our Placement's metric strategies read measured load: ``measured``."""
    return (
        "[watcher_datasources]\ndatasources = prometheus\n"
        f"[prometheus_client]\nhost = 127.0.0.1\nport = {measured.port}\n"
    )


@contextlib.contextmanager
def _placement(workdir: Path, keystone_url: str, measured: prom.Prometheus) -> Iterator[str]:
    """Our Placement on a migrated SQLite file, behind Keystone's auth_token,
    reading measured load from ``measured`` (the API process plans ONESHOT audits)."""
    url = placement_database(workdir)
    rig.migrated(url)
    with server.gunicorn(
        url,
        workers=2,
        auth_strategy="keystone",
        # Audits are checked against the types the appliers of this cloud perform.
        conf_extra=identity.authtoken_section(keystone_url, keystone_url)
        + "[watcher_applier]\nexecutor = nova\n"
        + measured_sections(measured),
    ) as base:
        yield base


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # so that ``running`` stops everything it started


def main() -> None:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    started = time.monotonic()
    with running(os.environ.get("NOVA_CLOUD_DIR")) as cloud:
        print(f"cloud up in {time.monotonic() - started:.0f} s; logs in {cloud.workdir}/logs")
        print(", ".join(f"{name} {seconds:.0f} s" for name, seconds in cloud.timings.items()))
        print(f"keystone:  {cloud.keystone_url}/v3")
        print(f"placement: {cloud.placement_url}")
        print(f"compute:   {cloud.compute_url}/v2.1")
        print(f"stubs:     {cloud.stubs.url} (image, network)")
        print(f"prometheus: {cloud.prometheus.url}")
        print(cloud.openrc(), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
