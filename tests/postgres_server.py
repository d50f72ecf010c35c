"""A PostgreSQL server in a temporary folder, for the contract tests and the search benchmark.

Test infrastructure, not library: it starts Debian's packaged server (`initdb`, `pg_ctl`) on a unix
socket only. The library's PostgreSQL store is `helpers.store_postgres`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

INSTALL_HINT = (
    "sudo apt-get install postgresql "
    "(Debian/Ubuntu; initdb and pg_ctl under /usr/lib/postgresql/*/bin)"
)


def find_postgres_bin() -> Path | None:
    """The folder of initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent  # /usr/local/bin may hold only a symlink to initdb
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


class TemporaryPostgres:
    """A PostgreSQL server in a temporary folder, on a unix socket only; `stop()` removes it.

    `folder=` keeps the server's files there instead (a cache: benchmarks reuse a loaded database):
    an existing cluster is started as it is, and `stop()` shuts it down but keeps the folder.
    initdb refuses to run as root, so as root the server runs as the `postgres` system user.
    """

    def __init__(
        self, bin_dir: Path | None = None, database: str = "memory", folder: Path | None = None
    ) -> None:
        found = bin_dir or find_postgres_bin()
        if found is None:
            raise FileNotFoundError(f"PostgreSQL is not installed: {INSTALL_HINT}")
        self.bin_dir: Path = found
        self.database = database
        self.keep = folder is not None
        if folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="memory-pg-"))
        else:
            self.folder = Path(folder)
            self.folder.mkdir(parents=True, exist_ok=True)
        self.data, self.socket = self.folder / "data", self.folder / "socket"
        self.socket.mkdir(exist_ok=True)
        self._as = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.folder, "postgres")
            shutil.chown(self.socket, "postgres")
        self.superuser = "postgres" if self._as else os.environ.get("USER", "postgres")
        if not (self.data / "PG_VERSION").exists():
            try:
                self._run(
                    "initdb",
                    "-D",
                    str(self.data),
                    "-U",
                    self.superuser,
                    "-A",
                    "trust",
                    "--no-sync",
                    "-E",
                    "UTF8",
                    "--locale=C",
                )
            except BaseException:
                self._remove()
                raise
        # A unix socket only (no TCP port to collide with), and no fsync: the data is thrown away.
        options = f"-k {self.socket} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        try:
            self.create_database(database)
        except BaseException:
            self.stop()
            raise

    def create_database(self, name: str) -> bool:
        """Create database `name` unless it exists; True if it was created."""
        import psycopg

        with psycopg.connect(self.conninfo(database="postgres"), autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                return False
        self._run("createdb", "-h", str(self.socket), "-U", self.superuser, name)
        return True

    def _remove(self) -> None:
        if not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as, str(self.bin_dir / tool), *args],
            capture_output=True,
            text=True,
            cwd=self.folder,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{tool} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            )

    def conninfo(self, user: str | None = None, database: str | None = None) -> str:
        return (
            f"host={self.socket} dbname={database or self.database} user={user or self.superuser}"
        )

    def stop(self) -> None:
        """Shut the server down; remove its folder unless it was given (`folder=`)."""
        try:
            mode = "fast" if self.keep else "immediate"  # a kept cluster restarts without recovery
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
        finally:
            self._remove()

    def __enter__(self) -> TemporaryPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["INSTALL_HINT", "TemporaryPostgres", "find_postgres_bin"]
