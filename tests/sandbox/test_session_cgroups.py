"""Each session's processes sit in a pids cgroup of their own, capped at the session's allowance,
now started by a leased spawner thread instead of a shell that moves itself in
(monitorbench/sandbox/session_cgroups.py, issue 49). What a user relies on: the cap holds, no
live process of one session is in the cgroup of another, nothing of the framework but the
spawner threads is moved, and no cgroup outlives the sandbox. Real bwrap sessions, real cgroups
(this host's, as CI's, give root a writable cgroup v1 pids hierarchy; the shell's way, which
cgroup v2 hosts take, is checked on the same host by turning the spawners off)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from conftest import GOOD, needs_bwrap, worker_and_init, write_verifier

from monitorbench.sandbox.bwrap import PIDS_SLACK, BwrapSandbox
from monitorbench.sandbox.cgroup import writable_pids_root

pytestmark = needs_bwrap


def _pids_cgroup(pid: int) -> str:
    """``pid``'s cgroup in the pids hierarchy, as /proc names it."""
    line = next(x for x in Path(f"/proc/{pid}/cgroup").read_text().splitlines()
                if x.split(":")[1] in ("pids", ""))
    return line.split(":", 2)[2]


def _empty(path: Path, spawner_tid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (path / "tasks").read_text().split() == [str(spawner_tid)]:
            return True
        time.sleep(0.002)
    return False


def test_sessions_are_capped_in_leased_cgroups_and_leave_none_behind(tmp_path, public_dir,
                                                                     spec) -> None:
    box = BwrapSandbox()
    assert box.cgroups._spawners, "this host gives root a writable cgroup v1 pids hierarchy"
    root = writable_pids_root()
    before = _pids_cgroup(threading.get_native_id())
    vdir = write_verifier(tmp_path, "def verify(candidate, env):\n    return 'PASS'\n")
    seen = []
    for _ in range(2):
        with box.session(vdir, public_dir, spec) as s:
            assert s.judge(GOOD).decision == "PASS"
            worker, _init = worker_and_init(s)
            path = root / _pids_cgroup(worker).lstrip("/")
            spawner = next(x for x in box.cgroups._all if x.cgroup.path == path)
            live = set((path / "tasks").read_text().split()) - {str(spawner._tid)}
            assert str(worker) in live and str(s.proc.pid) in live
            # the session's allowance, the spawner, and at most what was charged when it was
            # leased (zombies the host had yet to reap; Spawner.cap)
            allowance = spec.limits.processes + PIDS_SLACK + 1
            charged = int((path / "pids.current").read_text())
            assert allowance <= int((path / "pids.max").read_text()) <= allowance + charged
        seen.append(path)
        assert _empty(path, spawner._tid), "the session's processes outlived it"
    assert seen[0] == seen[1], "an empty cgroup is leased again, without a move"
    assert _pids_cgroup(threading.get_native_id()) == before, "the judging thread was moved"
    box.cgroups.close()
    assert not any(p.exists() for p in seen)


def test_concurrent_sessions_never_share_a_cgroup(tmp_path, public_dir, spec) -> None:
    box = BwrapSandbox()
    vdir = write_verifier(tmp_path, "def verify(candidate, env):\n    return 'PASS'\n")
    inside, both_open, paths = threading.Barrier(2), threading.Barrier(2), []

    def judge() -> None:
        with box.session(vdir, public_dir, spec) as s:
            assert s.judge(GOOD).decision == "PASS"
            inside.wait(timeout=30)
            paths.append(_pids_cgroup(worker_and_init(s)[0]))
            both_open.wait(timeout=30)

    threads = [threading.Thread(target=judge) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(paths) == 2 and paths[0] != paths[1]
    box.cgroups.close()


def test_without_spawners_each_session_joins_a_fresh_cgroup_that_is_removed(
        tmp_path, public_dir, spec) -> None:
    """cgroup v2's way (its threads cannot sit apart from their process): the shell moves the
    sandbox into a cgroup made for the session, removed when it closes."""
    box = BwrapSandbox()
    box.cgroups._spawners = False
    vdir = write_verifier(tmp_path, "def verify(candidate, env):\n    return 'PASS'\n")
    with box.session(vdir, public_dir, spec) as s:
        assert s.argv[:2] == ["/bin/sh", "-c"]
        assert s.judge(GOOD).decision == "PASS"
        path = writable_pids_root() / _pids_cgroup(worker_and_init(s)[0]).lstrip("/")
        assert int((path / "pids.max").read_text()) == spec.limits.processes + PIDS_SLACK
    assert not path.exists()
    assert box.cgroups._all == []
