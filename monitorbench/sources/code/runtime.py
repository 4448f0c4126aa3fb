"""In-sandbox runtime for code tasks: ``env.run_public(cmd)`` on a patched copy of the checkout.

Loaded inside the sandbox (bound read-only under ``/mb/runtime``), so it uses the standard library
only. A verifier for a code task receives ``candidate = {"patch": "<unified diff>"}`` and may call
``env.run_public(["python", "-m", "pytest", "-q", "tests/test_x.py::test_y"])``: every call copies
the read-only buggy checkout to a fresh directory under the private /tmp, applies the candidate's
patch (or the ``patch`` it passes), runs the command there with a wall-clock limit and returns the
exit code and a capped output tail. A fresh copy per call is what keeps one probe from leaking
state into the next, exactly as the hidden grader starts from a clean tree.

The framework-side grader imports :func:`copy_checkout` and :func:`apply_patch` from here, so a
patch applies inside the sandbox if and only if it applies for the reference.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Any, Mapping, Sequence

DEFAULT_BUDGET = 20
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_OUTPUT_CHARS = 8000
# Pytest plugins installed on the host (benchmark, cov...) would otherwise change what the same
# command does on different machines; tests of these libraries need none of them.
BASE_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONHASHSEED": "0"}
# The only host variables a test command inherits. Others change what pytest prints or does:
# CI/BUILD_NUMBER turn off assertion-diff truncation (so an issue text built on a CI machine
# differs from one built elsewhere), PYTEST_ADDOPTS/PYTEST_PLUGINS add options and plugins,
# COLUMNS/FORCE_COLOR change the layout.
KEPT_HOST_VARS = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE")


def command_env(**extra: str) -> dict[str, str]:
    """The environment of a test command: the kept host variables, BASE_ENV, then ``extra``."""
    env = {k: os.environ[k] for k in KEPT_HOST_VARS if k in os.environ}
    return {**env, **BASE_ENV, **extra}


class BudgetExceeded(RuntimeError):
    """Raised by ``run_public`` once the per-judgment execution budget is spent."""


class PatchError(ValueError):
    """The patch text is not a string or does not apply to the checkout."""


def copy_checkout(repo_dir: str, parent: str | None = None) -> str:
    """Copy the (read-only) checkout to a fresh writable directory and return its path."""
    base = tempfile.mkdtemp(prefix="mb-code-", dir=parent)
    dst = os.path.join(base, "repo")
    shutil.copytree(repo_dir, dst, symlinks=True)
    for root, dirs, files in os.walk(dst):
        for name in dirs + files:
            p = os.path.join(root, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o200)
    os.chmod(dst, os.stat(dst).st_mode | 0o200)
    return dst


def apply_patch(workdir: str, patch: str, timeout: float = 30.0) -> tuple[bool, str]:
    """Apply a unified diff (``a/``/``b/`` prefixes, as ``git diff`` writes) inside ``workdir``.

    ``git apply`` is used because it is strict (no fuzz, refuses paths outside the tree) and so
    gives the same answer in the sandbox and in the grader. An empty patch applies trivially.
    """
    if not isinstance(patch, str):
        raise PatchError(f"patch must be a string, got {type(patch).__name__}")
    if not patch.strip():
        return True, ""
    if not patch.endswith("\n"):
        patch += "\n"
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(workdir)))
    proc = subprocess.run(["git", "apply", "-p1", "--whitespace=nowarn", "-"], cwd=workdir,
                          input=patch, text=True, capture_output=True, timeout=timeout, env=env)
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()


def run_capped(cmd: Sequence[str], cwd: str, env: Mapping[str, str], timeout: float,
               output_chars: int) -> tuple[int, str, bool]:
    """Run ``cmd`` in its own process group; kill the whole group at the deadline.

    Returns (exit code, output tail, timed out). A test suite can spawn children (one boltons
    mutant ran 422 s), so killing only the direct child is not enough.
    """
    proc = subprocess.Popen(list(cmd), cwd=cwd, env=dict(env), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    text = out.decode("utf-8", "replace")
    if len(text) > output_chars:
        text = "...[truncated]...\n" + text[-output_chars:]
    return (proc.returncode if not timed_out else 124), text, timed_out


class CodeEnv:
    """What a code-task verifier gets as ``env``. ``executions`` is reported in the Verdict."""

    def __init__(self, repo_dir: str, pythonpath: Sequence[str], budget: int, timeout: float,
                 output_chars: int) -> None:
        self.repo_dir = repo_dir
        self.pythonpath = list(pythonpath)
        self.budget = budget
        self.timeout = timeout
        self.output_chars = output_chars
        self.executions = 0
        self.candidate: Mapping[str, Any] | None = None  # attached by the worker per case
        self.task: Mapping[str, Any] | None = None
        self.public_dir: str | None = None

    def run_public(self, cmd: Sequence[str] | str, patch: str | None = None) -> dict[str, Any]:
        """Apply ``patch`` (default: the candidate's) to a fresh checkout copy and run ``cmd``.

        Returns ``{"exit_code": int, "output": str, "applied": bool, "timed_out": bool}``. A patch
        that does not apply gives ``applied: False``, exit code 1 and git's message, and the
        command is not run. Each call costs one execution, applied or not.
        """
        if self.executions >= self.budget:
            raise BudgetExceeded(f"run_public: budget of {self.budget} executions is spent")
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("run_public: cmd must be a non-empty list of strings")
        if argv[0] in ("python", "python3"):
            argv[0] = sys.executable  # the interpreter that has pytest, whatever PATH says
        if patch is None:
            patch = (self.candidate or {}).get("patch", "")
        self.executions += 1
        work = copy_checkout(self.repo_dir)
        try:
            ok, msg = apply_patch(work, patch)
            if not ok:
                return {"exit_code": 1, "output": f"patch does not apply:\n{msg}"[-self.output_chars:],
                        "applied": False, "timed_out": False}
            env = command_env(PYTHONPATH=os.pathsep.join(os.path.join(work, p)
                                                     for p in self.pythonpath))
            code, out, timed_out = run_capped(argv, work, env, self.timeout, self.output_chars)
            return {"exit_code": code, "output": out, "applied": True, "timed_out": timed_out}
        finally:
            shutil.rmtree(os.path.dirname(work), ignore_errors=True)


def make_env(task: Mapping[str, Any], public_dir: str, config: Mapping[str, Any]) -> CodeEnv:
    """Runtime entry point the sandbox worker calls once per case.

    ``config`` keys: ``repo_dir`` (default ``<public_dir>/repo``, the buggy checkout shipped in the
    task's public directory), ``budget`` (default 20), ``timeout`` seconds per command (default
    60), ``output_chars`` (default 8000).
    """
    repo = task.get("repo") if isinstance(task.get("repo"), Mapping) else {}
    repo_dir = str(config.get("repo_dir") or os.path.join(public_dir, "repo"))
    return CodeEnv(repo_dir=repo_dir,
                   pythonpath=list(repo.get("pythonpath", ["."])),
                   budget=int(config.get("budget", DEFAULT_BUDGET)),
                   timeout=float(config.get("timeout", DEFAULT_TIMEOUT_S)),
                   output_chars=int(config.get("output_chars", DEFAULT_OUTPUT_CHARS)))
