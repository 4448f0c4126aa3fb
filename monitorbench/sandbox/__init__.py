"""sandbox stage of the monitorbench pipeline: untrusted verifiers judged far from the framework.

The isolation contract, kept by the ``bwrap`` and ``docker`` backends alike (``unshare`` is a
fallback without filesystem isolation and says so) and checked on both by
``tests/sandbox/test_sandbox_hostile_cases.py`` with the framework running as root:

* **Never host root.** Cases run as an unprivileged host uid: under docker the container user
  65534; under bubblewrap, when the framework is root, the worker becomes uid 65534 before it does
  anything else (``worker.drop_privileges``), otherwise the framework's own uid. Every case runs
  with no capabilities and ``no_new_privs``, so /proc/sys, root-owned files and setuid programs
  are out of reach. A verifier directory that uid cannot read is judged from a readable copy.
* **One seccomp deny list** (:mod:`monitorbench.sandbox.seccomp`), loaded by the worker into
  every case on every backend: keyrings, ptrace, process_vm_*, bpf, perf_event_open,
  userfaultfd, io_uring, the mount API, unshare/setns and namespace flags to clone, and socket
  families other than AF_UNIX, AF_INET and AF_INET6 (AF_VSOCK, netlink, packet...). No network.
* **Nothing of a case reaches the next.** Every case has its own IPC namespace (message queues
  and System V objects die with it), a pid counter that starts where the previous case's did
  (a case cannot choose the next case's pid), and every process it left is killed before the
  next case starts. /tmp (256 MB) and /dev/shm (64 MB), and under docker /dev/mqueue, are fresh
  tmpfs mounts per case, unmounted whole afterwards, so no file a case leaves (mode 0, 1,500
  levels deep, a full disk) can defeat the clean-up. Where a host refuses the worker its mounts
  (docker under AppArmor's docker-default profile), those directories are the container's,
  emptied after every case by an iterative wipe; a case that leaves more than the wipe removes
  is its own U (``sandbox_tampered``) and the worker is replaced. Neither ever counts as an
  infrastructure failure. Docker hides /sys/fs/cgroup; bubblewrap binds no /sys.
* **Nothing of a session reaches the next.** bubblewrap starts a new sandbox per session. Docker
  keeps a container per judging thread (``kept.py``): its keeper ends each session by killing
  every process but itself, emptying /tmp, /dev/shm and /dev/mqueue and removing every System V
  object, and the framework refills the bound verifier, task and runtime directories; a session
  it cannot clean retires the container.
* **No /proc for a case.** The cases' PID namespace has its pid counter reset before every case
  (by its init, through ns_last_pid: docker binds the host's at /mb/ns_last_pid, since a write
  sets the counter of the writer's own namespace and needs CAP_SYS_ADMIN over it, which only
  the init holds), but a /proc is its sandbox's, whose pid counter an earlier case moves
  (``readlink("/proc/self")``, the listing of /proc): a channel from one case to the next. A
  procfs of the cases' own namespace cannot be mounted under bubblewrap's or docker's covers, so
  the worker covers /proc with an empty read-only tmpfs in the cases' mount namespace
  (``worker._cover_proc``), keeping an fd of the real one to find a case's strays.
* **Known gap, docker where mounts are refused:** on such a host (AppArmor's docker-default) each
  case gets a fresh PID namespace of its own instead, but its /proc is the container's, and
  ``readlink("/proc/self")`` shows a pid counter that an earlier case of the session (and, in a
  kept container, an earlier session) can move. ``tests/sandbox/test_sandbox_hostile_cases.py``
  holds it as a strict expected failure, on docker with a profile that refuses mounts.
"""
