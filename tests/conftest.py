"""What every test shares: a terminal of no set width, and a PostgreSQL (``tests/pg.py``).

pytest-xdist starts its workers with ``COLUMNS=80``; a Rich console made while it is set keeps
that width for ever, and the tests that give the command line a width of their own
(``CliRunner(env={"COLUMNS": …})``) would depend on which module was imported first.
"""

from __future__ import annotations

import os

os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

#: ``store_target``, ``postgres_url`` and the clusters behind them.
pytest_plugins = ("tests.pg",)
