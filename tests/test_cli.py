"""The `monitorbench` console script. Every command runs at least once as users run it, a
subprocess of the installed script (`run` and `audit` for real, the other commands' `--help`),
and `python -m monitorbench` once (a real sweep); the other checks of a command's arguments and
messages call the same `main(argv)` (or `python -m`'s `run(argv)`) in this process
(tests/cli_in_process.py), which saves a Python start-up (and the imports) per call."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_in_process import monitorbench, python_m, run_here
from mlflow_server import seed_store

from monitorbench import __version__
from monitorbench.compose import group_options

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("run", "score", "report", "audit", "build", "list", "view")
RUN_FOR_REAL = ("run", "audit")   # their subprocesses below run a job and an audit


def _mb(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT,
        timeout: float = 180) -> subprocess.CompletedProcess:
    exe = shutil.which("monitorbench")
    assert exe, "the console script is missing: pip install -e . --no-deps"
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def _mb_here(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str,
             env: dict[str, str] | None = None, cwd: Path = ROOT
             ) -> subprocess.CompletedProcess:
    """`monitorbench ARGS` as `cli.main(ARGS)` in this process, in `cwd` with `env` set: the same
    exit code, stdout and stderr a subprocess would give (argparse's exits included)."""
    return run_here(monitorbench, args, monkeypatch, capsys, env=env, cwd=cwd)


def test_top_level_help_lists_every_command_with_examples(monkeypatch, capsys) -> None:
    r = _mb("--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: monitorbench")
    for command in COMMANDS:
        assert f"\n  {command} " in r.stdout
    assert "examples:" in r.stdout
    unknown = _mb_here(monkeypatch, capsys, "scroe")
    assert unknown.returncode == 2 and "unknown command 'scroe'" in unknown.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_its_own_name_and_an_example(command: str, monkeypatch,
                                                                 capsys) -> None:
    """A subprocess of the installed script for each command that runs for real nowhere else
    in this file; `run --help` and `audit --help` in this process."""
    r = (_mb_here(monkeypatch, capsys, command, "--help") if command in RUN_FOR_REAL
         else _mb(command, "--help"))
    assert r.returncode == 0, r.stderr
    assert f"usage: monitorbench {command}" in r.stdout
    assert "examples:" in r.stdout and f"  monitorbench {command} " in r.stdout


def test_score_access_vocabulary_is_the_access_group(monkeypatch, capsys) -> None:
    r = _mb_here(monkeypatch, capsys, "score", "--help")
    for name in group_options("access"):
        assert name in r.stdout
    assert "record_exec" not in r.stdout       # per-type modes are not the user's vocabulary


def test_list_tasks_prints_the_task_ids_of_a_built_suite(suites_dir: Path, monkeypatch,
                                                         capsys) -> None:
    from monitorbench.audit.exclusions import apply_exclusions, read_exclusions
    from monitorbench.suites.format import load_suite

    r = _mb_here(monkeypatch, capsys, "list", "tasks", "--suite", "bfcl",
                 "--suites-dir", str(suites_dir))
    assert r.returncode == 0, r.stderr
    built = load_suite(suites_dir / "bfcl")
    ids = [line.split()[0] for line in r.stdout.splitlines()]
    assert ids == sorted(apply_exclusions(built).tasks)   # the judged ones
    excluded = {e["task_id"] for e in read_exclusions(built.root)["excluded"]}
    assert not excluded & set(ids)
    assert len(built.tasks) - len(excluded) == len(ids)
    if excluded:
        assert f"{len(excluded)} more excluded by the audit" in r.stderr
    as_json = _mb_here(monkeypatch, capsys, "list", "tasks", "--suite", "bfcl", "--json",
                       "--suites-dir", str(suites_dir))
    rows = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [row["task_id"] for row in rows] == ids
    for row, line in zip(rows, r.stdout.splitlines()):
        task = built.tasks[row["task_id"]]
        assert row["task_type"] == "tool_call" and row["category"] == task.public["category"]
        assert row["cases"] == len(built.cases[task.task_id]) > 0
        assert row["instruction"] == task.public["instruction"].strip().splitlines()[0]
        assert f" {row['cases']} cases  {row['instruction'][:40]}" in line


def test_show_prints_the_public_task(suites_dir: Path, monkeypatch, capsys) -> None:
    from monitorbench.suites.format import load_suite

    task_id = sorted(load_suite(suites_dir / "bfcl").tasks)[0]
    r = _mb_here(monkeypatch, capsys, "show", task_id, "--suites-dir", str(suites_dir))
    assert r.returncode == 0, r.stderr
    public = suites_dir / "bfcl" / "public" / task_id / "task.json"
    assert json.loads(r.stdout) == json.loads(public.read_text())
    assert '"label":' not in r.stdout and "hidden" not in r.stderr       # nothing hidden


def test_a_task_no_built_suite_holds_is_an_error_that_builds_nothing(
        tmp_path: Path, suites_dir: Path, monkeypatch, capsys) -> None:
    """`score --task bfcl.simple_python_999` (a typo) built the full BFCL suite silently."""
    verifier = tmp_path / "v"
    verifier.mkdir()
    (verifier / "main.py").write_text("def verify(candidate, env):\n    return 'PASS'\n")
    before = sorted(p.name for p in suites_dir.iterdir())
    for task_id in ("bfcl.simple_python_999", "agentdojo.workspace.user_task_0"):
        t0 = time.monotonic()
        r = _mb_here(monkeypatch, capsys, "score", str(verifier), "--task", task_id,
                     "--suites-dir", str(suites_dir))
        assert time.monotonic() - t0 < 5
        assert r.returncode == 2, r.stderr
        assert f"no built suite holds task {task_id!r} (built: bfcl" in r.stderr
        assert f"monitorbench build {task_id.split('.')[0]}" in r.stderr
        shown = _mb_here(monkeypatch, capsys, "show", task_id, "--suites-dir", str(suites_dir))
        assert shown.returncode == 2 and "no built suite holds" in shown.stderr
    assert sorted(p.name for p in suites_dir.iterdir()) == before       # nothing built


def test_python_m_cli_is_the_console_script_and_every_source_is_listed(
        suites_dir: Path, monkeypatch, capsys) -> None:
    """`python -m monitorbench.cli --help` printed nothing; tau2 was missing from `build` and
    `audit --help`; `score --help` and `list --help` began with reST's ``."""
    from monitorbench.suites.source_registry import source_names

    module = subprocess.run([sys.executable, "-m", "monitorbench.cli", "--help"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert module.returncode == 0 and module.stdout == _mb("--help").stdout
    version = _mb("--version")
    assert version.returncode == 0, version.stderr
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    assert version.stdout.startswith(f"monitorbench {__version__} (git {commit}")
    helps = {c: _mb_here(monkeypatch, capsys, c, "--help").stdout
             for c in ("build", "audit", "list", "score")}
    listed = _mb_here(monkeypatch, capsys, "list", "suites", "--suites-dir", str(suites_dir))
    build_line = next(line for line in module.stdout.splitlines() if line.startswith("  build "))
    for name in source_names():
        assert name in build_line.split("(")[1].replace(",", " ").replace(")", " ").split()
        for command in ("build", "audit", "list"):
            assert name in helps[command], (command, name)
        assert listed.stdout.count(f"{name} ") >= 1
    for command, text in helps.items():
        assert "``" not in text and ":func:" not in text, command


def test_a_console_script_from_another_checkout_warns_once(tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    clone = tmp_path / "clone"
    (clone / "monitorbench").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\nname = 'monitorbench'\n")
    (clone / "monitorbench" / "__init__.py").write_text("")
    (clone / "sub").mkdir()
    r = _mb_here(monkeypatch, capsys, "list", "experiments", cwd=clone / "sub")
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and str(clone) in warnings[0]
    assert f"running monitorbench from {ROOT}" in warnings[0] and "python -m" in warnings[0]
    here = _mb_here(monkeypatch, capsys, "list", "experiments", cwd=ROOT)
    assert "warning:" not in here.stderr


def test_list_tasks_of_a_suite_not_built_says_how_to_build_it(tmp_path: Path, monkeypatch,
                                                             capsys) -> None:
    r = _mb_here(monkeypatch, capsys, "list", "tasks", "--suite", "bfcl",
                 "--suites-dir", str(tmp_path / "none"))
    assert r.returncode == 2
    assert "not built" in r.stderr and "monitorbench build bfcl" in r.stderr
    assert not (tmp_path / "none").exists()
    bad = _mb_here(monkeypatch, capsys, "list", "tasks", "--suite", "bfc",
                   "--suites-dir", str(tmp_path))
    assert bad.returncode == 2 and "unknown suite 'bfc'" in bad.stderr and "bfcl" in bad.stderr


def test_list_suites_and_experiments(suites_dir: Path, monkeypatch, capsys) -> None:
    suites = _mb_here(monkeypatch, capsys, "list", "suites", "--suites-dir", str(suites_dir))
    assert suites.returncode == 0
    lines = {line.split()[0]: line for line in suites.stdout.splitlines()}
    assert "built: bfcl" in lines["bfcl"] and "not built" in lines["code"]
    exps = _mb_here(monkeypatch, capsys, "list", "experiments")
    assert [line.split()[0] for line in exps.stdout.splitlines()] == group_options("experiment")


def test_report_for_an_unknown_experiment_fails_without_creating_a_store(
        tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "outputs"
    env = {"MONITORBENCH_OUTPUTS": str(out), "MLFLOW_TRACKING_URI": ""}
    r = _mb_here(monkeypatch, capsys, "report", "--experiment", "nosuch", env=env, cwd=tmp_path)
    assert r.returncode == 2
    assert "no experiment 'nosuch'" in r.stderr or "so no experiment 'nosuch'" in r.stderr
    for name in group_options("experiment"):
        assert name in r.stderr
    assert not (out / "mlflow.db").exists() and not out.exists()


def test_report_lists_the_experiments_an_existing_store_holds(tmp_path: Path, monkeypatch,
                                                              capsys, store_template: Path) -> None:
    """The store is a copy of the empty store MLflow made once per test run (its schema
    migrations paid once: conftest's ``store_template``), with two experiments MLflow adds."""
    from mlflow.tracking import MlflowClient

    out = tmp_path / "outputs"
    client = MlflowClient(tracking_uri=f"sqlite:///{seed_store(store_template, out)}")
    client.create_experiment("quickstart")
    client.create_experiment("my_sweep")
    r = _mb_here(monkeypatch, capsys, "report", "--experiment", "nosuch",
                 env={"MONITORBENCH_OUTPUTS": str(out), "MLFLOW_TRACKING_URI": ""}, cwd=tmp_path)
    assert r.returncode == 2
    assert "existing experiments: my_sweep, quickstart" in r.stderr


@pytest.mark.parametrize("args,key", [
    (["run", "+generatr=always_reject"], "generatr"),
    (["run", "-m", "access=raw,rawparsed"], "access"),
    (["run", "sandbox.limits.wall_secs=5"], "sandbox.limits.wall_secs"),
    (["run", "--cfg", "job", "+generatr=always_reject"], "generatr"),
    (["audit", "suite=bfcl", "+generatr=always_reject"], "generatr"),
    (["audit", "bfcl"], "suite"),
])
def test_run_refuses_a_typo_before_anything_is_written(tmp_path: Path, args: list[str],
                                                       key: str, monkeypatch, capsys) -> None:
    out = tmp_path / "outputs"
    r = _mb_here(monkeypatch, capsys, *args, env={"MONITORBENCH_OUTPUTS": str(out)}, cwd=tmp_path)
    assert r.returncode == 2
    assert f"field '{key}'" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("typo", ["+generatr=always_reject", "generatr=always_reject"])
def test_python_m_monitorbench_refuses_an_unknown_key_as_run_does(tmp_path: Path, typo: str,
                                                                   monkeypatch, capsys) -> None:
    """`python -m monitorbench` is the same entry point as `monitorbench run`: the same "did you
    mean" for a misspelt key, force-added or not (Hydra's own message for `generatr=` names no
    key that exists), before anything is written. In this process (its `run(argv)`): the real
    `python -m monitorbench` runs a sweep below."""
    r = run_here(python_m, [typo, "tracking=off"], monkeypatch, capsys,
                 env={"MONITORBENCH_OUTPUTS": str(tmp_path / "out")})
    assert r.returncode == 2
    assert "unknown config key 'generatr'" in r.stdout + r.stderr
    assert "did you mean 'generator'" in r.stdout + r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("line,words", [
    ("monitorbench ", COMMANDS),
    ("monitorbench r", ("run", "report")),
    ("monitorbench run access=r", tuple(f"access={a}" for a in group_options("access")
                                       if a.startswith("r"))),
    ("monitorbench run gener", ("generator=",)),
    ("monitorbench score --t", ()),
])
def test_tab_completion_completes_commands_and_runs_overrides(
        line: str, words: tuple[str, ...], monkeypatch, capsys) -> None:
    """What the script of `monitorbench run -sc install=bash` asks: `monitorbench -sc
    query=bash` with the typed line in $COMP_LINE (it used to answer "unknown command")."""
    r = _mb_here(monkeypatch, capsys, "-sc", "query=bash", env={"COMP_LINE": line})
    assert r.returncode == 0, r.stderr
    assert set(words) <= set(r.stdout.split())
    if not words:
        assert r.stdout.strip() == ""


def test_run_passes_the_overrides_to_hydra(tmp_path: Path, suites_dir: Path) -> None:
    out = tmp_path / "outputs"
    r = _mb("run", "generator=schema_check", "task.max_tasks_per_type=1", "tracking=off",
            f"paths.suites={suites_dir}", env={"MONITORBENCH_OUTPUTS": str(out)}, cwd=tmp_path,
            timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    (run_dir,) = (out / "runs").iterdir()
    assert (run_dir / "judgments.jsonl").stat().st_size > 0


@pytest.mark.parametrize("args", [
    ["-m", "+generatr=always_accept,always_reject"],
    ["-m", "access=raw,rawparsed"],
    ["+experiment=g4adv", "hydra.sweeper.params.access='raw,rawparsed'"],
])
def test_a_sweep_with_a_typo_in_any_value_stops_before_its_mlflow_parent_run(
        tmp_path: Path, args: list[str], monkeypatch, capsys) -> None:
    """StrictKeysCallback: the sweep's values are checked before the MLflow sweep callback would
    open a parent run (which would create outputs/mlflow.db). `python -m monitorbench`'s
    `run(argv)` in this process: the last case goes through Hydra's sweep to the callback."""
    out = tmp_path / "out"
    r = run_here(python_m, args, monkeypatch, capsys,
                 env={"MONITORBENCH_OUTPUTS": str(out), "MLFLOW_TRACKING_URI": ""})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "generatr" in r.stderr + r.stdout or "'rawparsed'" in r.stderr + r.stdout
    assert not (out / "mlflow.db").exists()


def test_a_valid_sweep_passes_the_check_and_runs_every_job(tmp_path: Path,
                                                           suites_dir: Path) -> None:
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "monitorbench", "-m",
                        "generator=always_accept,always_reject", "access=raw_parsed,parsed",
                        "task.max_tasks_per_type=1", "tracking=off", f"paths.suites={suites_dir}"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "MONITORBENCH_OUTPUTS": str(out)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(list((out / "runs").iterdir())) == 4


def test_audit_runs_the_v4v_audit_of_a_suite(tmp_path: Path, suites_dir: Path) -> None:
    suites = tmp_path / "suites"        # a copy: the audit rewrites the suite's audit.json
    shutil.copytree(suites_dir / "bfcl", suites / "bfcl")
    r = _mb("audit", "suite=bfcl", "task.max_tasks_per_type=1", "tracking=off",
            f"paths.suites={suites}", env={"MONITORBENCH_OUTPUTS": str(tmp_path / "out")},
            cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert '"tasks": 1' in r.stdout


@pytest.mark.parametrize("verbose", [False, True])
def test_http_request_logs_are_off_unless_v(verbose: bool, caplog, monkeypatch) -> None:
    """A model run printed httpx's `HTTP Request: POST .../v1/chat/completions` per reply.
    httpx's own log line, and that of the client the openai SDK sends requests with (httpx2 in
    openai 3.x, logging as "httpx2"), from requests to an in-memory transport (no server)."""
    import importlib

    import httpx
    import openai

    import monitorbench.__main__ as entry

    sdk_client = type(openai.DefaultHttpxClient()).__mro__[1]   # the HTTP library's Client
    sdk_http = importlib.import_module(sdk_client.__module__.split(".")[0])

    seen: list[bool] = []
    monkeypatch.setattr(entry, "check_overrides", lambda argv: seen.append("-v" in argv))
    monkeypatch.setattr(entry, "main", lambda: entry.quiet_http_logs(entry._verbose))
    monkeypatch.setattr(sys, "argv", ["monitorbench"])
    with caplog.at_level(logging.INFO):
        assert entry.run(["-v", "tracking=off"] if verbose else ["tracking=off"]) == 0
        with httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200))) as c:
            c.get("http://endpoint.invalid/v1/models")
        with openai.DefaultHttpxClient(transport=sdk_http.MockTransport(
                lambda r: sdk_http.Response(200))) as c:
            c.get("http://endpoint.invalid/v1/chat")
    entry.quiet_http_logs(False)
    assert seen == [False] and sys.argv[1:] == ["tracking=off"]   # Hydra never sees -v
    said = [r.getMessage() for r in caplog.records]
    assert any("HTTP Request: GET" in m and "/models" in m for m in said) == verbose
    assert any("HTTP Request: GET" in m and "/chat" in m for m in said) == verbose, said


def test_python_m_version_is_monitorbench_not_hydra(monkeypatch, capsys) -> None:
    """`python -m monitorbench --version` printed Hydra's `Hydra 1.3.8`: Hydra's own flag."""
    from cli_in_process import python_m

    from monitorbench.cli_info import version_line

    r = run_here(python_m, ["--version"], monkeypatch, capsys)
    assert r.returncode == 0 and r.stdout.strip() == version_line(), r.stdout + r.stderr
    assert "Hydra" not in r.stdout
    real = subprocess.run([sys.executable, "-m", "monitorbench", "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert real.returncode == 0 and real.stdout.startswith(f"monitorbench {__version__} (git ")
