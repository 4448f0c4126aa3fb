"""What a verifier can reach from inside the bwrap and docker sandboxes: no network, no hidden files, no
masked package data, no repository."""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

from conftest import BAD, GOOD, hostile

from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.bwrap import bwrap_argv
from monitorbench.sandbox.docker import image_path
from monitorbench.sandbox.runtimes import RUNTIMES_DIR

REPO = Path(__file__).resolve().parents[2]


def judges_on(session) -> None:
    assert session.judge(GOOD).outcome == "P"
    assert session.judge(BAD).outcome == "F"


class Listener:
    """A real TCP server on 127.0.0.1 recording every connection and byte it receives."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    self.received.append(conn.recv(4096) or b"<connected>")
                except OSError:
                    self.received.append(b"<connected>")

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.sock.close()


def test_network_is_unreachable(isolating, tmp_path, public_dir, spec):
    server = Listener()
    try:
        # control: the same client code reaches the server from outside the sandbox
        with socket.create_connection(("127.0.0.1", server.port), timeout=2) as c:
            c.sendall(b"control")
        vdir = hostile(tmp_path, f"""
            import socket
            s = socket.create_connection(("127.0.0.1", {server.port}), timeout=1)
            s.sendall(b"label please")
            return "PASS"
            """)
        with isolating.session(vdir, public_dir, spec) as s:
            v = s.judge({"attack": True})
            assert v.reason == "crash" and ("OSError" in v.detail or "Error" in v.detail), v
            judges_on(s)
    finally:
        server.close()
    assert server.received == [b"control"]


def test_hidden_files_outside_the_sandbox_are_not_readable(isolating, tmp_path, public_dir, spec):
    hidden = tmp_path / "hidden" / "t1" / "cases.jsonl"
    hidden.parent.mkdir(parents=True)
    hidden.write_text('{"label": "PASS"}\n')
    targets = [str(hidden), str(REPO / "pyproject.toml"),
               str(REPO / "monitorbench" / "suites" / "reference.py")]
    vdir = hostile(tmp_path, f"""
        for path in {targets!r}:
            try:
                with open(path) as f:
                    print("READ", path, f.read(20))
            except OSError as e:
                print("denied", type(e).__name__)
        return "PASS"
        """)
    with isolating.session(vdir, public_dir, spec) as s:
        v = s.judge({"attack": True})
        assert v.decision == "PASS"
        assert "READ" not in v.stdout and v.stdout.count("denied") == 3, v.stdout
        judges_on(s)


def _answer_file() -> Path:
    """τ²'s airline tasks (their evaluation criteria are answer keys), installed in
    site-packages: in the bwrap sandbox and, copied, in the docker image."""
    from monitorbench.sources.tau2.build import masked_paths

    return next(Path(p) for p in masked_paths() if p.endswith("airline/tasks.json")).resolve()


def test_masked_package_data_is_hidden(isolating, tmp_path, public_dir, spec):
    host_answers = _answer_file()
    answers = image_path(host_answers) if isolating.name == "docker" else host_answers
    vdir = hostile(tmp_path, f"""
        import os
        try:
            with open({str(answers)!r}) as f:
                print("READ", len(f.read()))
        except OSError as e:
            print("denied", type(e).__name__)
        print("listing", os.listdir(os.path.dirname({str(answers)!r})) if
              os.path.isdir(os.path.dirname({str(answers)!r})) else "none")
        return "PASS"
        """)
    # control: without the mask the answer key is readable (it sits in site-packages)
    with isolating.session(vdir, public_dir, spec) as s:
        assert "READ" in s.judge({"attack": True}).stdout
    masked = SandboxSpec(limits=spec.limits, masked_paths=(str(host_answers.parent),))
    with isolating.session(vdir, public_dir, masked) as s:
        v = s.judge({"attack": True})
        assert "READ" not in v.stdout and "denied" in v.stdout, v.stdout
        judges_on(s)


def test_sandbox_cannot_write_bound_trees(isolating, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, f"""
        for path in ["/verifier/main.py", "/task/task.json", {sys.prefix + '/evil.txt'!r}]:
            try:
                open(path, "a").close()
                print("WROTE", path)
            except OSError:
                pass
        return "PASS"
        """)
    with isolating.session(vdir, public_dir, spec) as s:
        v = s.judge({"attack": True})
        assert v.decision == "PASS" and "WROTE" not in v.stdout, v.stdout
    assert not Path(sys.prefix, "evil.txt").exists()


def test_framework_environment_does_not_leak(isolating, tmp_path, public_dir, spec, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-for-test")
    vdir = hostile(tmp_path, """
        import os
        print(sorted(k for k in os.environ if "KEY" in k))
        return "PASS"
        """)
    with isolating.session(vdir, public_dir, spec) as s:
        assert s.judge({"attack": True}).stdout.strip() == "[]"


def test_argv_binds_only_what_python_needs(tmp_path, public_dir, spec):
    vdir = tmp_path / "v"
    vdir.mkdir()
    argv = bwrap_argv(vdir, public_dir, spec, RUNTIMES_DIR)
    pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1)]
    binds = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a.startswith("--ro-bind")
             or a == "--bind"]
    assert ("--ro-bind", "/") not in pairs and "/" not in binds
    assert {"--unshare-net", "--unshare-pid", "--unshare-ipc"} <= set(argv) or (
        "--unshare-all" in argv)
    assert "--die-with-parent" in argv and "--clearenv" in argv
    assert ("--cap-add" in argv) == (os.geteuid() == 0)  # SETUID/SETGID, to leave root at once
    assert not any(Path(b) == REPO or REPO in Path(b).parents
                   for b in binds if b not in (str(vdir), str(public_dir))
                   and not b.startswith(str(RUNTIMES_DIR)) and not b.endswith("worker.py"))
