"""A real Docker engine for the tests: started by the run, with networking off, stopped at its end.

Why a daemon of our own: the docker backend is tested against Debian's real ``dockerd``, not a
double, and nothing may change the host's networking (``--bridge=none --iptables=false
--ip-forward=false --ip-masq=false``). Its data root lives in the cache (``cache_root()``), so the
image ``monitorbench sandbox build-image`` makes (debootstrap from the Debian mirror, about 2 min,
then about 1 min to copy the runtime packages in) is built once per machine and reused by later
runs; its socket is the run's own. The build starts in the background as soon as collection ends
(like the harness installs), so it overlaps the tests that run before the docker ones; those
wait on the build's lock (``docker_image``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from filelock import FileLock

from monitorbench.hashing import cache_root

ENGINE_ROOT = pytest.StashKey[Path]()
_building: list[subprocess.Popen[bytes]] = []
_engine_error: list[str] = []  # why the engine could not start, for the docker tests to say
_BUILD = ("import os\nfrom filelock import FileLock\n"
          "from monitorbench.sandbox.image import build_image\n"
          "from monitorbench.suites.sandbox_image import image_recipe\n"
          "with FileLock(os.environ['MB_IMAGE_LOCK']):\n"
          "    build_image(image_recipe(), log=lambda line: print(line, flush=True))\n")


def engine_dirs() -> tuple[Path, Path]:
    """(data root shared by runs on this machine, the run's state: socket, pid file, logs).

    The state lives at a short path named by a hash of the data root, never inside the checkout:
    containerd puts a socket under the exec root, and a Unix socket path may not exceed 104-108
    bytes, so a checkout at /home/<name>/research/<project>/... would stop the engine from
    starting."""
    data = cache_root() / "docker-engine"
    tag = hashlib.sha256(str(data.resolve()).encode()).hexdigest()[:10]
    return data, Path(tempfile.gettempdir()) / f"mbd-{tag}"


def _answers(host: str) -> bool:
    env = {**os.environ, "DOCKER_HOST": host}
    try:
        return subprocess.run(["docker", "info"], capture_output=True, env=env,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def start_engine() -> str:
    """Start dockerd (once per run; later callers reuse it) and point this process at it."""
    data, run = engine_dirs()
    run.mkdir(parents=True, exist_ok=True)
    host = f"unix://{run / 'docker.sock'}"
    with FileLock(str(run / "engine.lock")):
        if not _answers(host):
            log = open(run / "dockerd.log", "ab")
            proc = subprocess.Popen(
                ["dockerd", "--bridge=none", "--iptables=false", "--ip6tables=false",
                 "--ip-forward=false", "--ip-masq=false", "--storage-driver=overlay2",
                 "--data-root", str(data / "data"), "--exec-root", str(run / "exec"),
                 "--pidfile", str(run / "docker.pid"), "-H", host],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
            deadline = time.monotonic() + 30
            while not _answers(host):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise EngineUnavailable(_why_not(run / "dockerd.log"))
                time.sleep(0.2)
    os.environ["DOCKER_HOST"] = host
    return host


class EngineUnavailable(RuntimeError):
    """dockerd could not be started here: the docker tests fail with this one line."""


def _why_not(log: Path) -> str:
    tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.is_file() else []
    return (f"dockerd did not start ({tail[0][-300:] if tail else 'no log line'}); the docker "
            f"tests need Debian's docker.io ('bash scripts/install.sh test') and a host that "
            f"lets dockerd run; full log: {log}")


def stop_engine() -> None:
    """Stop the run's dockerd (its containers with it) and wait for it to exit."""
    _, run = engine_dirs()
    pidfile = run / "docker.pid"
    if not pidfile.is_file():
        return
    pid = int(pidfile.read_text().strip())
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(150):
            os.kill(pid, 0)
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    pidfile.unlink(missing_ok=True)
    shutil.rmtree(run / "exec", ignore_errors=True)


def needs_docker(item: pytest.Item) -> bool:
    """A test that runs the docker backend: it uses ``docker_image`` or a ``docker`` param
    (tests that ask for the image later, through ``request``, name "docker" or "docker-..." as a
    param)."""
    if "docker_image" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(str(v).startswith("docker")
                                        for v in callspec.params.values())


def start_build_in_background(session: pytest.Session) -> None:
    """On the first worker only: start the engine and the image build if a selected test
    needs them."""
    if session.config.option.collectonly or os.environ.get("PYTEST_XDIST_WORKER",
                                                             "gw0") != "gw0":
        return
    if not any(needs_docker(item) for item in session.items):
        return
    try:
        start_engine()
    except (EngineUnavailable, OSError) as e:  # only the docker tests fail, each saying why
        _engine_error.append(str(e))
        return
    _, run = engine_dirs()
    with open(run / "build.log", "ab") as log:
        _building.append(subprocess.Popen(
            [sys.executable, "-c", _BUILD], stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "MB_IMAGE_LOCK": str(run / "image.lock")}))


def finish(exitstatus: int, controller: bool) -> None:
    """Wait for (or, on a failed run, end) the background build; the controller (the process
    that started no worker, or the only process) stops the engine last."""
    for proc in _building:
        if proc.poll() is None and exitstatus != 0:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
    if controller:
        stop_engine()


@pytest.fixture(scope="session")
def docker_image() -> str:
    """The recipe's image, in the run's engine (built here if the background build has not
    finished it; a failed build fails here, with its error)."""
    from monitorbench.sandbox.image import build_image
    from monitorbench.suites.sandbox_image import image_recipe

    if _engine_error:
        pytest.fail(_engine_error[0], pytrace=False)
    try:
        start_engine()
    except (EngineUnavailable, OSError) as e:
        pytest.fail(str(e), pytrace=False)
    _, run = engine_dirs()
    with FileLock(str(run / "image.lock")):
        return build_image(image_recipe(), log=lambda line: None)
