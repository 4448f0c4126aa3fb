"""The generator for harness scaffolds: a real agent program writes the verifier.

One generation = install the pinned harness (first use only), prepare its workspace, run it in
the harness sandbox against the generator's endpoint through the budgeted proxy, keep its native
trajectory (under ``home/`` in the generation's directory) and convert it into trace events,
and deliver ``main.py`` with its helper files -- also when the harness stopped at a limit (its
own step limit, or the proxy's), like the ``agent`` scaffold submits its draft at a limit, with
the limit in the detail. The identity holds the harness name, version and package, the model's
identity, the condition, the scaffold and the grammar's sha256, so a cache entry is only reused
for the same program, version, model and reply format.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from monitorbench.config import GeneratorConfig, HarnessLimits, ScaffoldConfig, identity
from monitorbench.errors import InputError
from monitorbench.hashing import sha256_text
from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED, GenerationResult
from monitorbench.generation.harnesses import safe_files
from monitorbench.generation.harnesses.bridge import (ENDPOINT_SOCK, LAUNCHER, RUN_PUBLIC_SOCK,
                                                      EndpointProxy, RunPublicServer)
from monitorbench.generation.harnesses.install import Package, ensure_installed, install_record
from monitorbench.generation.harnesses.registry import HARNESSES
from monitorbench.generation.harnesses.sandbox import (RESOLV_CONF, Mounts, RunOutcome,
                                                       base_env, harness_argv, run_bounded)
from monitorbench.generation.harnesses.spec import Harness, HarnessRun
from monitorbench.generation.harnesses.workspace import (collect_verifier, harness_prompt,
                                                         prepare_workspace)
from monitorbench.providers.base import ChatModel
from monitorbench.providers.factory import make_chat_model
from monitorbench.generation.prompts import prompts_sha256
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.sandbox.base import Sandbox, SandboxSpec
from monitorbench.suites.format import Task

# Bump when what this module or a harness's command makes of the same run changes (prompt
# assembly, delivery rules, budget enforcement, a harness's flags), so cached verifiers made under
# the old rules are not reused. 2: a main.py written before a limit is delivered with the limit;
# 3: Claude Code runs with bypassPermissions (under acceptEdits it could not run Bash); 4: the
# sandbox's limits, and links, special files and oversize files are never read or delivered;
# 5: the token budget reserves calls in flight, vendor-side fields and tools are stripped, the
# reply cap goes in each API's own field, /mb/sock is read-only and /tmp capped (issue 44).
HARNESS_SCAFFOLD_VERSION = 5
OUTPUT_LOG = "harness_output.log"  # the harness's stdout+stderr, up to the cap
INSIDE_PORT = 18080  # where the harness finds an endpoint whose own port is privileged (https)
GRAMMARS_DIR = Path(__file__).parent / "grammars"  # shipped GBNF grammars, by file stem


def shipped_grammars() -> list[str]:
    return sorted(p.stem for p in GRAMMARS_DIR.glob("*.gbnf"))


def load_grammar(value: str | None, where: str) -> str | None:
    """The GBNF text ``scaffold.harness.grammar`` names: a grammar shipped in the package (by
    name) or a ``.gbnf`` file (by path). Only llama.cpp-family servers understand it (the
    ``grammar`` field of a chat-completions request)."""
    if value is None:
        return None
    field_name = "scaffold.harness.grammar"
    if value in shipped_grammars():
        return (GRAMMARS_DIR / f"{value}.gbnf").read_text(encoding="utf-8")
    path = Path(value).expanduser()
    if path.suffix != ".gbnf":
        raise InputError(where, field_name, f"unknown grammar {value!r}",
                         f"use one of {', '.join(shipped_grammars())}, a path to a .gbnf "
                         "file, or null for none")
    if not path.is_file():
        raise InputError(where, field_name, f"grammar file {str(path)!r} does not exist",
                         "give the path of an existing .gbnf file (absolute, or relative to "
                         "the working directory)")
    text = path.read_text(encoding="utf-8", errors="replace")
    if "root" not in text or "::=" not in text:
        raise InputError(where, field_name, f"{str(path)!r} is not a GBNF grammar (no 'root ::=' "
                         "rule)", "write the grammar in llama.cpp's GBNF, starting at 'root ::='")
    return text


def check_limits(limits: HarnessLimits, where: str) -> None:
    """Every limit is a positive number, and the process limit stays below the host's pid_max
    (else it bounds nothing: the fork bomb of issue 18 reached 1,500 host processes)."""
    for name, value in vars(limits).items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(where, f"scaffold.harness.limits.{name}",
                             f"must be a positive whole number, got {value!r}",
                             f"set it to a number >= 1 (default {getattr(HarnessLimits(), name)})")
    pid_max = _pid_max()
    if limits.processes >= pid_max:
        raise InputError(where, "scaffold.harness.limits.processes",
                         f"{limits.processes} is not below this host's pid_max ({pid_max})",
                         f"use at most {pid_max // 4} (default {HarnessLimits().processes})")


def _pid_max() -> int:
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text())
    except (OSError, ValueError):
        return 32768  # the kernel's default


class HarnessGenerator:
    """Implements :class:`monitorbench.generation.base.Generator` with a harness program."""

    def __init__(self, harness: Harness, model: ChatModel, gen_cfg: GeneratorConfig,
                 scaffold_cfg: ScaffoldConfig, *, api_key: str | None, sandbox: Sandbox | None,
                 spec_for: Callable[[Task], SandboxSpec] | None,
                 install_root: Path | None = None,
                 allowed_fields: frozenset[str] = frozenset()) -> None:
        if harness.unsupported or harness.command is None or harness.native_events is None:
            usable = sorted(h for h, spec in HARNESSES.items() if not spec.unsupported)
            raise InputError(f"conf/scaffold/{scaffold_cfg.name}.yaml", "scaffold.harness.name",
                             str(harness.unsupported), f"use one of {', '.join(usable)}")
        self.command, self.native_events = harness.command, harness.native_events
        version = scaffold_cfg.harness.version or harness.package.version
        self.harness = harness
        self.package = Package(harness.package.manager, harness.package.name, version)
        self.model, self.gen_cfg, self.scaffold_cfg = model, gen_cfg, scaffold_cfg
        self.api_key, self.sandbox, self.spec_for = api_key, sandbox, spec_for
        self.install_root = install_root
        # Vendor-side request fields / tool types the proxy lets through by name (field_policy);
        # part of the identity: they change what the endpoint is asked.
        self.allowed_fields = allowed_fields
        self.grammar = load_grammar(scaffold_cfg.harness.grammar,
                                    f"conf/scaffold/{scaffold_cfg.name}.yaml")
        check_limits(scaffold_cfg.harness.limits, f"conf/scaffold/{scaffold_cfg.name}.yaml")
        self._identity = {
            "kind": "harness", "harness": harness.name, "version": version,
            "package": self.package.spec, "model": dict(model.identity),
            "condition": identity(gen_cfg.condition), "scaffold": identity(scaffold_cfg),
            "harness_scaffold_version": HARNESS_SCAFFOLD_VERSION,
            "grammar_sha256": sha256_text(self.grammar) if self.grammar is not None else None,
            "allowed_fields": sorted(allowed_fields),
            "prompts": {"version": scaffold_cfg.prompt_version,
                        "sha256": prompts_sha256(scaffold_cfg.prompt_version)},
        }

    @property
    def identity(self) -> Mapping[str, Any]:
        return self._identity

    def install(self) -> Path:
        """The harness's install directory (installed on first use)."""
        return ensure_installed(self.harness.name, self.package, self.install_root)

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        install_dir = self.install()
        ctx = RunContext(task=task, public_dir=Path(public_dir), out_dir=Path(out_dir),
                         model=self.model, condition=self.gen_cfg.condition,
                         scaffold=self.scaffold_cfg, sandbox=self.sandbox,
                         spec_for=self.spec_for)
        ctx.log("start", scaffold=self.scaffold_cfg.name, task_id=task.task_id,
                harness=self.harness.name, package=self.package.spec,
                install=install_record(install_dir), grammar=self.scaffold_cfg.harness.grammar,
                vendor_fields={"policy": "strip", "allowed": sorted(self.allowed_fields)})
        workspace, home = ctx.out_dir / "workspace", ctx.out_dir / "home"
        prepare_workspace(workspace, ctx.public_dir, self.scaffold_cfg.prompt_version)
        home.mkdir()
        prompt = harness_prompt(self.scaffold_cfg.prompt_version, task.task_id, task.task_type,
                                ctx.public_dir, self.scaffold_cfg.run_public_budget)
        tmp = Path(tempfile.mkdtemp(prefix="mbh.", dir="/tmp"))  # short socket paths
        try:
            outcome, limit = self._run(ctx, install_dir, workspace, home, prompt, tmp)
        finally:  # iterative and bounded, never shutil.rmtree (a deep tree would raise)
            safe_files.discard(tmp)
        _contain(ctx, workspace, home, self.scaffold_cfg.harness.limits, outcome)
        limit = self._native_events(ctx, home, limit)
        ctx.counters["steps"] = ctx.counters["model_calls"]
        return _deliver(ctx, workspace, outcome, limit)

    def _native_events(self, ctx: RunContext, home: Path, limit: str | None) -> str | None:
        """Trace the harness's native trajectory; a file the readers refuse (a link, a FIFO,
        over the size cap) or cannot parse ends the reading with an ``error`` event, never the
        job. Returns the run's limit, or the harness's own when it stopped itself at one."""
        try:
            for event, fields in self.native_events(home, ctx.out_dir / OUTPUT_LOG):
                if ctx.trace.full:  # a flood: stop reading (the trace says ``truncated``)
                    ctx.log(event, native=True, **fields)
                    break
                if event == "format_error":
                    ctx.counters["format_errors"] += 1
                if event == "limit":  # the harness stopped itself at its own limit
                    limit = limit or str(fields.get("limit"))
                ctx.log(event, native=True, **fields)
        except Exception as e:  # hostile content: record it, deliver what the workspace holds
            ctx.log("error", native=True, detail=f"native trajectory not read: "
                                                 f"{type(e).__name__}: {e}"[:1000])
        return limit

    def _run(self, ctx: RunContext, install_dir: Path, workspace: Path, home: Path,
             prompt: str, tmp: Path) -> tuple[RunOutcome, str | None]:
        url = urlsplit(str(self.gen_cfg.base_url))
        port = url.port or (443 if url.scheme == "https" else 80)
        if port < 1024:  # no capabilities inside: the forwarder cannot bind a privileged port
            port = INSIDE_PORT
        inside_url = f"http://127.0.0.1:{port}{url.path.rstrip('/')}"
        run = HarnessRun(install_dir=install_dir, home=home, base_url=inside_url,
                         model=str(self.gen_cfg.model), prompt=prompt,
                         scaffold=self.scaffold_cfg, condition=self.gen_cfg.condition)
        argv, extra_env = self.command(run)
        (tmp / "sock").mkdir()
        (tmp / "launch.py").write_text(LAUNCHER)
        (tmp / "resolv.conf").write_text(RESOLV_CONF)
        lock = threading.Lock()
        proxy = EndpointProxy(ctx, str(self.gen_cfg.base_url), tmp / "sock" / ENDPOINT_SOCK,
                              lock, api_key=self.api_key, grammar=self.grammar,
                              allowed_fields=self.allowed_fields)
        runner = RunPublicServer(ctx, tmp / "sock" / RUN_PUBLIC_SOCK, lock)
        try:
            mounts = Mounts(install_dir, workspace, home, tmp / "sock", tmp / "launch.py",
                            tmp / "resolv.conf")
            limits = self.scaffold_cfg.harness.limits
            full = harness_argv(mounts, {**base_env(install_dir), **extra_env}, port, argv,
                                tmp_bytes=limits.disk_mb << 20)
            outcome = run_bounded(full, ctx.out_dir / OUTPUT_LOG,
                                  wall_seconds=float(self.gen_cfg.condition.wall_seconds),
                                  output_bytes=int(self.scaffold_cfg.harness.output_bytes),
                                  limits=limits,
                                  over_disk=lambda: over_disk(workspace, home, limits))
        finally:
            proxy.close()
            runner.close()
        return outcome, proxy.limit_reason


def _deliver(ctx: RunContext, workspace: Path, outcome: RunOutcome, limit: str | None
             ) -> GenerationResult:
    """The result: a hung or flooding harness delivers nothing; otherwise main.py if written,
    also after a step or token limit (``limit``), which the detail then names."""
    ctx.log("harness_exit", returncode=outcome.returncode, reason=outcome.reason,
            seconds=outcome.seconds, output_tail=outcome.output_tail[-1500:])
    if outcome.reason:
        ctx.log("limit", limit=outcome.reason.split(":")[0],
                detail=f"harness stopped: {outcome.reason}")
        return ctx.finish(NO_SUBMISSION, f"{outcome.reason}: harness stopped after "
                                         f"{outcome.seconds:.0f} s")
    missing = collect_verifier(workspace, ctx.verifier_dir)
    if missing:
        safe_files.discard(ctx.verifier_dir)
        why = f"; {limit}" if limit else ""
        return ctx.finish(NO_SUBMISSION, f"{missing} (harness exit {outcome.returncode}{why})")
    ctx.write_draft((ctx.verifier_dir / "main.py").read_text(encoding="utf-8", errors="replace"))
    at_limit = f"{limit}; " if limit else ""
    return ctx.finish(SUBMITTED, f"{at_limit}main.py delivered (harness exit "
                                 f"{outcome.returncode})")


def _contain(ctx: RunContext, workspace: Path, home: Path, limits: HarnessLimits,
             outcome: RunOutcome) -> None:
    """After the run, before anything reads what the harness left: over the disk limit, its
    workspace and HOME are emptied (nothing of it is kept, or cached); then links, special
    files, files cut off at the file-size limit and over-deep trees are removed
    (``safe_files.sanitize``), each removal traced, a cut-off file ending the run as
    ``file_size_limit``."""
    if not outcome.reason:
        outcome.reason = over_disk(workspace, home, limits)
    if outcome.reason.startswith("disk_limit"):
        for d in (workspace, home):
            safe_files.discard(d)
            d.mkdir()
    for d in (workspace, home):
        for note in safe_files.sanitize(d, file_cap=limits.file_size_mb << 20):
            ctx.log("removed", detail=f"{d.name}/{note}")
            if "file-size limit" in note and not outcome.reason:
                outcome.reason = (f"file_size_limit: {d.name}/{note.split(':')[0]} reached "
                                  f"{limits.file_size_mb} MB")


def over_disk(workspace: Path, home: Path, limits: HarnessLimits) -> str:
    """'' while workspace and HOME stay within ``limits``' disk size and entry count, else the
    ``disk_limit`` reason."""
    used = entries = 0
    for d in (workspace, home):
        b, n = safe_files.usage(d, max_entries=limits.disk_entries + 1)
        used, entries = used + b, entries + n
    if used > limits.disk_mb << 20 or entries > limits.disk_entries:
        return (f"disk_limit: workspace and HOME hold {used >> 20} MB in {entries} entries "
                f"(limits {limits.disk_mb} MB, {limits.disk_entries} entries)")
    return ""


def build_harness_generator(gen_cfg: GeneratorConfig, scaffold_cfg: ScaffoldConfig, *,
                            sandbox: Sandbox | None,
                            spec_for: Callable[[Task], SandboxSpec] | None) -> HarnessGenerator:
    """Entry point for ``generation.factory`` when ``scaffold.harness.name`` is set."""
    where = f"conf/scaffold/{scaffold_cfg.name}.yaml"
    name = scaffold_cfg.harness.name
    if name not in HARNESSES:
        raise InputError(where, "scaffold.harness.name", f"unknown harness {name!r}",
                         f"use one of {', '.join(sorted(HARNESSES))}")
    if gen_cfg.provider != "openai" or not gen_cfg.base_url or not gen_cfg.model:
        raise InputError("conf/generator", "generator.provider",
                         f"harness {name!r} needs an HTTP endpoint, got provider "
                         f"{gen_cfg.provider!r}",
                         "use generator=openai with generator.base_url and generator.model "
                         "(e.g. a local llama.cpp server)")
    model = make_chat_model(gen_cfg)
    api_key = os.environ.get(gen_cfg.api_key_env) if gen_cfg.api_key_env else None
    return HarnessGenerator(HARNESSES[name], model, gen_cfg, scaffold_cfg, api_key=api_key,
                            sandbox=sandbox, spec_for=spec_for,
                            allowed_fields=_allowed_fields(scaffold_cfg, where))


def _allowed_fields(scaffold_cfg: ScaffoldConfig, where: str) -> frozenset[str]:
    """``scaffold.harness.allow_vendor_fields`` as the proxy's allowlist; a name that is not a
    plain field or tool-type name is refused (a typo would silently allow nothing)."""
    names = [str(n) for n in scaffold_cfg.harness.allow_vendor_fields or ()]
    bad = [n for n in names if not n or not n.replace("_", "").isalnum()]
    if bad:
        raise InputError(where, "scaffold.harness.allow_vendor_fields",
                         f"{bad!r} are not field or tool-type names",
                         "list names such as web_search, mcp_servers or background")
    return frozenset(names)
