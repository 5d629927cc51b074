"""A throw-away PostgreSQL server for tests and benches, from the Debian ``postgresql`` binaries.

Why a real server: the PostgreSQL store is only believed when it runs against PostgreSQL itself
(transactions, triggers, several client processes), not a stand-in. ``PostgresServer`` makes a
cluster in a fresh temporary folder (trust authentication, UTF8, fsync off, listening on
127.0.0.1 at a free port, its Unix socket inside the folder), starts it with ``pg_ctl -w`` and on
exit stops it (``pg_ctl -m fast``) and removes the folder. ``initdb`` refuses to run as root, so
as root the cluster belongs to the ``postgres`` user and every server command runs as that user.

Missing binaries raise ``PostgresUnavailable`` (the fixture turns it into a skip with the reason);
a server that does not start raises ``PostgresStartError`` with the tail of the server's log.

Example:
    >>> with PostgresServer() as pg:  # doctest: +SKIP
    ...     url = pg.create_database("t1")  # postgresql://postgres@127.0.0.1:PORT/t1
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "postgres"
START_TIMEOUT = 60
LOG_TAIL_LINES = 30


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries (or, as root, the ``postgres`` user) are not on this machine."""


class PostgresStartError(RuntimeError):
    """``initdb`` or ``pg_ctl start`` failed; the message carries the tail of the server log."""


def find_bindir() -> Path:
    """The newest ``/usr/lib/postgresql/*/bin`` holding ``initdb``, else ``pg_config --bindir``.

    Raises:
        PostgresUnavailable: no ``initdb``/``pg_ctl`` found.
    """
    def major(path: str) -> float:
        found = re.search(r"/postgresql/(\d+(?:\.\d+)?)/bin$", path)
        return float(found.group(1)) if found else 0.0

    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=major, reverse=True)
    if shutil.which("pg_config"):
        try:
            out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
            candidates.append(out.stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    for bindir in candidates:
        if bindir and all(Path(bindir, tool).is_file() for tool in ("initdb", "pg_ctl")):
            return Path(bindir)
    raise PostgresUnavailable(
        "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: "
        "install Debian's `postgresql` package (`make db-deps` does it as root)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no server log)"
    return "\n".join(text.splitlines()[-lines:]) or "(server log empty)"


class PostgresServer:
    """One PostgreSQL cluster in a temporary folder, for the life of a ``with`` block.

    Args:
        port: the TCP port (default: a free one).
        bindir: the folder with ``initdb``/``pg_ctl`` (default: ``find_bindir()``).
    """

    def __init__(self, port: int | None = None, bindir: Path | None = None):
        self.bindir = Path(bindir) if bindir else find_bindir()
        self.port = port or free_port()
        self.root: Path | None = None
        self.log: Path | None = None
        self._run_as: list[str] = []
        self._started = False

    # ---- lifecycle ---------------------------------------------------------------------
    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def datadir(self) -> Path:
        assert self.root is not None, "server not started"
        return self.root / "data"

    def _cmd(self, tool: str, *args: str) -> list[str]:
        return [*self._run_as, str(self.bindir / tool), *args]

    def start(self) -> None:
        """Make the cluster and start the server; on failure remove the folder and raise.

        Raises:
            PostgresUnavailable: root without a ``postgres`` user to run the server as.
            PostgresStartError: initdb or the server failed (with the log's tail).
        """
        self.root = Path(tempfile.mkdtemp(prefix="medassure-pg-"))
        self.log = self.root / "server.log"
        if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to the postgres user
            try:
                user = pwd.getpwnam(SUPERUSER)
            except KeyError:
                self._remove()
                raise PostgresUnavailable(
                    "running as root and there is no `postgres` user to run the server as") from None
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._run_as = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
                            "--"]
        try:
            self._initdb()
            self._pg_ctl_start()
        except BaseException:
            self._remove()
            raise
        self._started = True

    def _initdb(self) -> None:
        out = subprocess.run(
            self._cmd("initdb", "-D", str(self.datadir), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                      "--locale=C", "--no-sync"),
            capture_output=True, text=True, timeout=START_TIMEOUT, cwd=self.root)
        if out.returncode != 0:
            detail = (out.stderr or out.stdout)[-3000:]
            raise PostgresStartError(f"initdb failed (exit {out.returncode}):\n{detail}")
        settings = (f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{self.root}'\nfsync = off\nsynchronous_commit = off\n"
                    "full_page_writes = off\nmax_connections = 100\n")
        with open(self.datadir / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n# tests/pg_server.py\n" + settings)

    def _pg_ctl_start(self) -> None:
        assert self.log is not None
        out = subprocess.run(
            self._cmd("pg_ctl", "-D", str(self.datadir), "-l", str(self.log), "-w", "-t", str(START_TIMEOUT),
                      "start"),
            capture_output=True, text=True, timeout=START_TIMEOUT + 10, cwd=self.root)
        if out.returncode != 0:
            kept = Path(tempfile.gettempdir()) / f"medassure-pg-{self.port}-failed.log"
            with contextlib.suppress(OSError):  # the cluster folder is removed; its log is kept here
                shutil.copyfile(self.log, kept)
            raise PostgresStartError(
                f"PostgreSQL did not start on 127.0.0.1:{self.port} (pg_ctl exit {out.returncode}: "
                f"{(out.stderr or out.stdout).strip()[-500:]}). Server log kept in {kept}, last lines:\n"
                f"{_tail(self.log)}")

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its folder; safe to call twice."""
        if self._started:
            subprocess.run(self._cmd("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "stop"),
                           capture_output=True, text=True, timeout=START_TIMEOUT, cwd=self.root)
            self._started = False
        self._remove()

    def _remove(self) -> None:
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    # ---- databases ---------------------------------------------------------------------
    def url(self, dbname: str = "postgres") -> str:
        """``postgresql://postgres@127.0.0.1:PORT/dbname``."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The last lines of the server log (for failure messages)."""
        return _tail(self.log, lines) if self.log else "(no server log)"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True, connect_timeout=10) as con:
            con.execute(sql)

    def create_database(self, name: str) -> str:
        """Create database ``name`` (letters, digits, underscore) and return its URL."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
            raise ValueError(f"not a plain database name: {name!r}")
        self._admin(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name``, closing any session still on it."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
            raise ValueError(f"not a plain database name: {name!r}")
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
