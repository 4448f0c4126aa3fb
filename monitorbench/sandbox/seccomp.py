"""The one seccomp deny list every case runs under, on every backend, and its compiled filter.

The worker loads the filter into each case after the case's namespaces are set up and before any
untrusted code runs (``worker._enter_case``), so bubblewrap, docker and unshare sessions judge
under the same rules. Docker's container-wide profile (``docker_seccomp.json``) stays in force
around it. Everything not listed is allowed: the list removes kernel interfaces a verifier has no
use for and that would reach past its case (keyrings outlive it, ptrace and process_vm_* read
other processes, bpf/perf/userfaultfd/io_uring are kernel attack surface, mount and namespace
calls could undo the sandbox's own).

The filter is classic BPF, built here (no libseccomp binding needed): check the architecture
(any other ABI, x32 included, is refused outright), then the syscall number; ``socket`` is allowed
only for AF_UNIX, AF_INET and AF_INET6 (networking is off anyway: this closes AF_VSOCK, netlink,
packet and the rest), ``clone`` only without namespace flags; ``clone3`` answers ENOSYS, so libc
falls back to ``clone``, whose flags the filter can read.
"""

from __future__ import annotations

import errno
import functools
import platform
import struct

# name -> why a verifier is refused it (documentation the tests and README quote)
DENIED: dict[str, str] = {
    "add_key": "kernel keyrings outlive the case",
    "request_key": "kernel keyrings outlive the case",
    "keyctl": "kernel keyrings outlive the case",
    "ptrace": "tracing another process",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "kcmp": "comparing other processes' kernel objects",
    "bpf": "kernel attack surface",
    "perf_event_open": "kernel attack surface, side channels",
    "userfaultfd": "kernel attack surface (race amplification)",
    "io_uring_setup": "runs operations this filter does not see",
    "io_uring_enter": "runs operations this filter does not see",
    "io_uring_register": "runs operations this filter does not see",
    "mount": "changing the sandbox's own mounts",
    "umount2": "changing the sandbox's own mounts",
    "pivot_root": "changing the sandbox's own mounts",
    "open_tree": "changing the sandbox's own mounts",
    "move_mount": "changing the sandbox's own mounts",
    "fsopen": "changing the sandbox's own mounts",
    "fsconfig": "changing the sandbox's own mounts",
    "fsmount": "changing the sandbox's own mounts",
    "fspick": "changing the sandbox's own mounts",
    "mount_setattr": "changing the sandbox's own mounts",
    "unshare": "new namespaces, outside the case's",
    "setns": "entering other namespaces",
}
ALLOWED_SOCKET_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET

# Syscall numbers per machine: x86_64 (arch/x86/entry/syscalls/syscall_64.tbl) and aarch64
# (the generic table, include/uapi/asm-generic/unistd.h).
_X86_64 = {"add_key": 248, "request_key": 249, "keyctl": 250, "ptrace": 101,
           "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "bpf": 321,
           "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
           "io_uring_enter": 426, "io_uring_register": 427, "mount": 165, "umount2": 166,
           "pivot_root": 155, "open_tree": 428, "move_mount": 429, "fsopen": 430,
           "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
           "unshare": 272, "setns": 308, "socket": 41, "clone": 56, "clone3": 435}
_AARCH64 = {"add_key": 217, "request_key": 218, "keyctl": 219, "ptrace": 117,
            "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272, "bpf": 280,
            "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425,
            "io_uring_enter": 426, "io_uring_register": 427, "mount": 40, "umount2": 39,
            "pivot_root": 41, "open_tree": 428, "move_mount": 429, "fsopen": 430,
            "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
            "unshare": 97, "setns": 268, "socket": 198, "clone": 220, "clone3": 435}
# machine -> (AUDIT_ARCH_*, numbers, syscall numbers at or above this belong to another ABI)
ARCHES = {"x86_64": (0xC000003E, _X86_64, 0x40000000),
          "aarch64": (0xC00000B7, _AARCH64, None)}

# classic BPF opcodes and seccomp return values
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg0's low word: little endian)


def _errno(code: int) -> int:
    return _ERRNO | code


@functools.lru_cache(maxsize=None)
def compile_filter(machine: str | None = None) -> bytes:
    """The deny list as a classic BPF program (``struct sock_filter`` array) for ``machine``
    (default: this one), built once per process (every session's worker config carries it).
    Raises ValueError for a machine without a syscall table here."""
    machine = machine or platform.machine()
    if machine not in ARCHES:
        raise ValueError(f"no seccomp syscall table for machine {machine!r}")
    audit_arch, nrs, foreign_abi = ARCHES[machine]
    denied = sorted({nrs[name] for name in DENIED})
    # (code, jt, jf, k); jumps are filled by label below
    prog: list[tuple[int, object, object, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, audit_arch),
        (_RET_K, 0, 0, _errno(errno.EPERM)),  # another ABI: nothing allowed
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if foreign_abi is not None:
        prog.append((_JGE_K, "deny", 0, foreign_abi))
    prog += [(_JEQ_K, "deny", 0, nr) for nr in denied]
    prog += [(_JEQ_K, "socket", 0, nrs["socket"]), (_JEQ_K, "clone", 0, nrs["clone"]),
             (_JEQ_K, "nosys", 0, nrs["clone3"]), (_RET_K, 0, 0, _ALLOW)]
    labels = {"socket": len(prog)}
    prog.append((_LD_W_ABS, 0, 0, _ARG0))
    prog += [(_JEQ_K, "allow", 0, fam) for fam in ALLOWED_SOCKET_FAMILIES]
    prog.append((_RET_K, 0, 0, _errno(errno.EAFNOSUPPORT)))
    labels["clone"] = len(prog)
    prog += [(_LD_W_ABS, 0, 0, _ARG0), (_JSET_K, "deny", 0, NAMESPACE_FLAGS)]
    labels["allow"] = len(prog)
    prog.append((_RET_K, 0, 0, _ALLOW))
    labels["deny"] = len(prog)
    prog.append((_RET_K, 0, 0, _errno(errno.EPERM)))
    labels["nosys"] = len(prog)
    prog.append((_RET_K, 0, 0, _errno(errno.ENOSYS)))
    out = b""
    for i, (code, jt, jf, k) in enumerate(prog):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        assert 0 <= jt < 256 and 0 <= jf < 256, "jump out of a BPF instruction's reach"
        out += struct.pack("<HBBI", code, jt, jf, k)
    return out
