"""A real PostgreSQL for the store's tests (docs/protocol.md §4), as a pytest plugin.

One cluster per pytest worker process (``weimaque.deploy.postgres.LocalPostgres``, started the
first time a test asks for it), and a database of its own for each test that uses one, dropped
after it. ``store_target`` runs a test on both engines: an SQLite file, then a PostgreSQL URL.
Where PostgreSQL is not installed (``make services``), its cases are skipped saying so.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from weimaque.deploy import postgres
from weimaque.deploy.postgres import LocalPostgres

#: The two engines a ``store_target`` test runs on.
ENGINES = ("sqlite", "postgresql")
MISSING = (
    "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): "
    "`make services` installs Debian's"
)

_databases = itertools.count()


def need_postgres() -> None:
    """Skip the test, saying why, where PostgreSQL cannot run."""
    if not postgres.available():
        pytest.skip(MISSING)


def postgres_folder() -> Path:
    """A folder for a cluster, under /tmp (a root's pytest folder is closed to ``postgres``)."""
    return Path(tempfile.mkdtemp(prefix="wmq-pg-"))


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[LocalPostgres]:
    """This worker's PostgreSQL."""
    need_postgres()
    folder = postgres_folder()
    try:
        with LocalPostgres(folder) as cluster:
            yield cluster
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_cluster: LocalPostgres) -> Iterator[str]:
    """The URL of a new, empty database (``t_<pid>_<n>``), dropped after the test."""
    name = f"t_{os.getpid()}_{next(_databases)}"
    url = postgres_cluster.create_database(name)
    try:
        yield url
    finally:
        postgres_cluster.drop_database(name)


@pytest.fixture
def own_postgres() -> Iterator[LocalPostgres]:
    """A cluster of the test's own, for a test that stops and starts it (an outage)."""
    need_postgres()
    folder = postgres_folder()
    try:
        with LocalPostgres(folder) as cluster:
            yield cluster
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=ENGINES)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What names a new, empty store: an SQLite file's path, or a PostgreSQL database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return str(request.getfixturevalue("postgres_url"))
