"""A runtime named by module path: the sandbox binds that module or package and nothing beside it.

The runtimes here live in a throwaway package under tmp (as a task source's runtime lives in the
source's package), found through ``sys.path`` exactly as ``SourceSpec.runtime`` is resolved.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import FAST, needs_bwrap, write_verifier

from monitorbench.errors import InputError
from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.bwrap import BwrapSandbox, bwrap_argv
from monitorbench.sandbox.runtimes import RUNTIMES_DIR

PACKAGE = "mb_toy_source"

PROBE = """
import json, os

def verify(candidate, env):
    print(json.dumps({"value": env.run_public(candidate["x"]), "secret": os.path.exists(SECRET),
                      "runtime": sorted(os.listdir("/mb/runtime")) if os.path.isdir("/mb/runtime")
                      else None}))
    return "PASS"
"""


@pytest.fixture
def toy_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mb_toy_source``: a file runtime, a package runtime whose modules import each other, and
    a sibling module standing for the source's secrets."""
    pkg = tmp_path / "src" / PACKAGE
    (pkg / "pkg_runtime").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "secret.py").write_text("ANSWER = 42\n")
    (pkg / "file_runtime.py").write_text(textwrap.dedent("""
        class Env:
            executions = 0
            def run_public(self, x):
                self.executions += 1
                return x + 1
        def make_env(task, public_dir, config):
            return Env()
        """))
    (pkg / "pkg_runtime" / "__init__.py").write_text(textwrap.dedent("""
        from .helpers import Doubler
        def make_env(task, public_dir, config):
            return Doubler(config["factor"])
        """))
    (pkg / "pkg_runtime" / "helpers.py").write_text(textwrap.dedent("""
        class Doubler:
            def __init__(self, factor):
                self.factor, self.executions = factor, 0
            def run_public(self, x):
                self.executions += 1
                return x * self.factor
        """))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    yield pkg
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


@pytest.mark.parametrize("runtime,config,want", [
    ("file_runtime", {}, 5), ("pkg_runtime", {"factor": 3}, 12)])
def test_a_module_path_runtime_runs_and_its_package_stays_hidden(
        sandbox, toy_source: Path, tmp_path: Path, public_dir: Path, runtime: str, config: dict,
        want: int) -> None:
    vdir = write_verifier(tmp_path, f"SECRET = {str(toy_source / 'secret.py')!r}\n" + PROBE)
    spec = SandboxSpec(limits=FAST, runtime=f"{PACKAGE}.{runtime}", runtime_config=config)
    with sandbox.session(vdir, public_dir, spec) as s:
        v = s.judge({"x": 4})
    assert (v.decision, v.executions) == ("PASS", 1), v
    seen = json.loads(v.stdout)
    assert seen["value"] == want
    if sandbox.name == "bwrap":  # unshare hides no file (its documented, loudly warned limit)
        assert seen["secret"] is False
        assert seen["runtime"] == [runtime + (".py" if runtime == "file_runtime" else "")]


@needs_bwrap
def test_bwrap_binds_the_runtime_and_the_loader_only(toy_source: Path, tmp_path: Path,
                                                     public_dir: Path) -> None:
    spec = SandboxSpec(limits=FAST, runtime=f"{PACKAGE}.pkg_runtime")
    argv = bwrap_argv(tmp_path, public_dir, spec, RUNTIMES_DIR)
    binds = {argv[i + 2]: argv[i + 1] for i, a in enumerate(argv[:-2]) if a == "--ro-bind"}
    assert binds["/mb/runtime/pkg_runtime"] == str(toy_source / "pkg_runtime")
    assert binds["/mb/runtimes/__init__.py"] == str(RUNTIMES_DIR / "__init__.py")
    assert not any(Path(src) == toy_source or src == str(RUNTIMES_DIR) for src in binds.values())


@pytest.mark.parametrize("runtime", [f"{PACKAGE}.missing", "no_such_package.runtime",
                                     f"{PACKAGE}..x", "nope"])
def test_an_unknown_runtime_is_refused_before_any_start(toy_source: Path, tmp_path: Path,
                                                       public_dir: Path, runtime: str) -> None:
    with pytest.raises(InputError) as e:
        with BwrapSandbox().session(tmp_path, public_dir, SandboxSpec(runtime=runtime)):
            pass
    assert e.value.field == "sandbox.runtime" and runtime in e.value.problem
    assert "package.module" in e.value.fix
