"""A local PostgreSQL for the store (docs/protocol.md §4): tests and a cluster on one machine.

Debian's binaries (``/usr/lib/postgresql/VERSION/bin``, the newest there is) run a cluster of
its own in a folder it is given: ``initdb`` once, then ``pg_ctl`` starts it listening on
127.0.0.1 on a free port, its unix socket in the folder, ``fsync`` on, every local connection
trusted. PostgreSQL refuses to run as root: run by root, the folder is given to the
``postgres`` user and the binaries run as that user (``runuser``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import subprocess
from pathlib import Path
from typing import Final, Self

from weimaque.deploy.process import Piece, free_port

#: Where Debian installs each major version's binaries.
BINARIES: Final = "/usr/lib/postgresql/*/bin"
#: The cluster's superuser (no password: local connections are trusted).
USER: Final = "postgres"
START_SECONDS: Final = 30


def bin_dir() -> Path | None:
    """The newest installed version's binaries (``apt-get install postgresql``), or None."""
    found = [Path(p) for p in glob.glob(BINARIES) if os.access(Path(p) / "pg_ctl", os.X_OK)]

    def version(path: Path) -> tuple[int, ...]:
        name = path.parent.name
        return tuple(int(x) for x in name.split(".") if x.isdigit()) or (0,)

    return max(found, key=version, default=None)


def available() -> bool:
    """Whether PostgreSQL's binaries are installed (and, run by root, its user exists)."""
    if bin_dir() is None:
        return False
    if os.geteuid() != 0:
        return True
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return False
    return True


class PostgresError(RuntimeError):
    """A command of the local cluster failed; the message quotes its output."""


class LocalPostgres(Piece):
    """An unprivileged PostgreSQL cluster in ``folder`` on 127.0.0.1, with database ``database``.

    ``stop()`` then ``start()`` brings it back on the same port with the same data (an outage);
    ``close()`` stops it for good (the folder stays). As a context manager it is started on
    entry and closed on exit.
    """

    def __init__(
        self, folder: str | os.PathLike[str], port: int | None = None, database: str = "weimaque"
    ) -> None:
        self.folder = Path(folder).resolve()
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.port = port if port is not None else free_port()
        self.database = database
        self.running = False

    def __repr__(self) -> str:
        return f"LocalPostgres({str(self.folder)!r}, port={self.port})"

    @property
    def url(self) -> str:
        """``postgresql://postgres@127.0.0.1:PORT/DATABASE``."""
        return self.url_of(self.database)

    def url_of(self, database: str) -> str:
        """The URL of another database of this cluster."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    # ----------------------------------------------------------------- commands

    def _run(self, tool: str, *args: str) -> str:
        """Run one of the cluster's binaries (as ``postgres`` when this is root); its output."""
        found = bin_dir()
        if found is None:
            raise PostgresError(f"PostgreSQL is not installed (no {BINARIES}/pg_ctl)")
        command = [str(found / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", USER, "--", *command]
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=START_SECONDS + 30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PostgresError(f"{' '.join(command)!r} failed: {exc}") from exc
        output = (done.stdout + done.stderr).strip()
        if done.returncode != 0:
            raise PostgresError(
                f"{' '.join(command)!r} exited with {done.returncode}:\n{output}{self._log_tail()}"
            )
        return output

    def _log_tail(self) -> str:
        try:
            text = self.log.read_text("utf-8", "replace")[-3000:]
        except OSError:
            return ""
        return f"\nthe server's log ({self.log}):\n{text}" if text.strip() else ""

    def _own(self) -> None:
        """Run by root: the folder belongs to ``postgres``, who must be able to reach it."""
        if os.geteuid() != 0:
            return
        user = pwd.getpwnam(USER)
        for path in (self.folder, *self.folder.rglob("*")):
            with contextlib.suppress(FileNotFoundError):
                os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)
        probe = subprocess.run(
            ["runuser", "-u", USER, "--", "test", "-w", str(self.folder)], check=False
        )
        if probe.returncode != 0:
            raise PostgresError(
                f"the user {USER!r} cannot write {self.folder} (is a folder above it private "
                "to root? give LocalPostgres a folder under /tmp)"
            )

    def _init(self) -> None:
        self._run(
            "initdb",
            "--pgdata",
            str(self.data),
            "--username",
            USER,
            "--auth",
            "trust",
            "--encoding",
            "UTF8",
            "--locale",
            "C",
        )
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.folder}'",
            "fsync": "on",
            "synchronous_commit": "on",
            "max_connections": "200",
            "shared_buffers": "32MB",
            "logging_collector": "off",
        }
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write("\n# weimaque.deploy.postgres\n")
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())

    def start(self) -> None:
        """Make the cluster (the first time), start it and create the database; wait for it."""
        if self.running:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self._own()
        if not (self.data / "PG_VERSION").exists():
            self._init()
        self._run(
            "pg_ctl",
            "start",
            "--pgdata",
            str(self.data),
            "--log",
            str(self.log),
            "--wait",
            "--timeout",
            str(START_SECONDS),
        )
        self.running = True
        self.create_database(self.database, exist_ok=True)

    def create_database(self, name: str, *, exist_ok: bool = False) -> str:
        """Create database ``name`` (an identifier); its URL."""
        if not name.isidentifier():
            raise ValueError(f"not a database name: {name!r}")
        import psycopg

        with psycopg.connect(self.url_of("postgres"), autocommit=True) as db:
            have = db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if have is None:
                db.execute(f'CREATE DATABASE "{name}"')
            elif not exist_ok:
                raise PostgresError(f"database {name!r} exists already")
        return self.url_of(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name``, its connections closed first."""
        if not name.isidentifier():
            raise ValueError(f"not a database name: {name!r}")
        import psycopg

        with psycopg.connect(self.url_of("postgres"), autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server at once (``pg_ctl stop -m fast``); ``start()`` brings it back."""
        if not self.running:
            return
        self._run("pg_ctl", "stop", "--pgdata", str(self.data), "--mode", "fast", "--wait")
        self.running = False

    def close(self) -> None:
        """Stop the server for good (its folder stays)."""
        self.stop()

    def __enter__(self) -> Self:
        self.start()
        return self
