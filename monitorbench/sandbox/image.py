"""The docker backend's image: one declared recipe, built here from the Debian mirror alone.

Why a recipe of our own: no registry is reachable from the machines this runs on (and a cluster's
may not be either), so a hub name such as ``python:3.11-slim`` would make ``docker run`` try a
pull that cannot work. The image is made in two steps, each named by a content hash so a changed
recipe (or a changed installed version) is a new image, never a silently different one:

* the base, ``monitorbench-base:<hash>``: ``debootstrap --variant=minbase --include=python3``
  from the Debian mirror, imported with ``docker import``;
* the sandbox, ``monitorbench-sandbox:<hash>``: the base plus the distributions the sources'
  in-sandbox runtimes import (each source names its own in ``SourceSpec.sandbox_distributions``;
  the caller above the sandbox layer gathers them into the recipe) and what they require, copied
  file by file from the framework's own environment at their installed versions. The copy is what keeps the verifier's view the same as under
  bubblewrap (same package versions); the Python minor version must match the framework's,
  because compiled extensions are copied too, and the build checks that it does.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable

from packaging.requirements import Requirement

from monitorbench.errors import InputError, MonitorbenchError
from monitorbench.hashing import canonical_json, sha256_text

BUILD_COMMAND = "monitorbench sandbox build-image"
RECIPE_VERSION = 1
# A local engine answers `docker version` in tens of milliseconds, and a client with no engine
# fails at once; 4 s bounds an engine that accepts but never answers, inside the 5 s promised.
ENGINE_TIMEOUT_S = 4.0
START_ENGINE = ("start it (`sudo systemctl start docker`, or `sudo dockerd &`; rootless: "
                "`dockerd-rootless.sh &`), point DOCKER_HOST at a running engine, or use "
                "sandbox=bwrap (the default)")


@dataclass(frozen=True)
class ImageRecipe:
    """What the sandbox image is made of (the content hash covers every field).

    ``distributions`` are the installed distributions the runtimes need inside (their
    requirements are followed from metadata). They are kept sorted and unique, so the image's
    name does not depend on the order in which sources were registered."""

    suite: str = "bookworm"           # Debian 12: python3 is 3.11, the framework's minor version
    variant: str = "minbase"
    include: tuple[str, ...] = ("python3", "git")  # git: the code runtime applies patches
    distributions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "distributions", tuple(sorted(set(self.distributions))))


def python_minor() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def image_site_dir() -> str:
    """Where the copied distributions live in the image: Debian's python3 puts this on its path
    even under ``-I`` (and the worker's ``-S`` path adds it back)."""
    return f"/usr/local/lib/python{python_minor()}/dist-packages"


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=1)
def _installed() -> dict[str, md.Distribution]:
    """Every installed distribution by normalised name (one scan of sys.path, not one a name)."""
    index: dict[str, md.Distribution] = {}
    for dist in md.distributions():
        index.setdefault(_key(dist.metadata["Name"]), dist)
    return index


def closure(names: Iterable[str]) -> dict[str, md.Distribution]:
    """The installed distributions ``names`` need, requirements followed, with the extras a
    requirement names (agentdojo's ``pydantic[email]`` needs email-validator)."""
    seen: dict[str, md.Distribution] = {}
    done: set[tuple[str, str]] = set()
    todo = [(name, "") for name in names]
    while todo:
        name, extra = todo.pop()
        dist = _installed().get(_key(name))
        if (_key(name), extra) in done or dist is None:
            continue  # done already, or an optional platform requirement not installed here
        done.add((_key(name), extra))
        seen[_key(name)] = dist
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": extra}):
                todo += [(req.name, "")] + [(req.name, e) for e in sorted(req.extras)]
    return seen


def dockerfile(base: str) -> str:
    return f"FROM {base}\nCOPY site/ {image_site_dir()}/\n"


def base_hash(recipe: ImageRecipe) -> str:
    material = {"v": RECIPE_VERSION, "suite": recipe.suite, "variant": recipe.variant,
                "include": list(recipe.include)}
    return sha256_text(canonical_json(material))[:16]


def base_name(recipe: ImageRecipe) -> str:
    return f"monitorbench-base:{base_hash(recipe)}"


@functools.lru_cache(maxsize=4)
def image_name(recipe: ImageRecipe) -> str:
    """``monitorbench-sandbox:<hash>`` of the recipe, the installed versions it copies, the
    Python minor version and the Dockerfile."""
    pins = sorted(f"{k}=={d.version}" for k, d in closure(recipe.distributions).items())
    material = {"recipe": asdict(recipe), "pins": pins, "python": python_minor(),
                "dockerfile": dockerfile(base_name(recipe)), "v": RECIPE_VERSION}
    return f"monitorbench-sandbox:{sha256_text(canonical_json(material))[:16]}"


def engine_endpoint() -> str:
    """Where the client looks for the engine: ``DOCKER_HOST``, else its default socket."""
    return os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock (or the docker context)"


def require_engine(binary: str = "docker", field: str | None = "sandbox.backend") -> None:
    """Raise one line naming the engine and how to start it unless one answers here. Checked
    before anything asks the engine for an image: without an engine, "image not in the engine"
    sends the user to a build that spends minutes in debootstrap before failing the same way."""
    if shutil.which(binary) is None:
        raise InputError(None, field, f"no docker client ('{binary}') on PATH, so no docker "
                         "engine", f"install docker and {START_ENGINE}")
    try:
        res = subprocess.run([binary, "version", "--format", "{{.Server.Version}}"],
                             capture_output=True, text=True, timeout=ENGINE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        why = f"it did not answer within {ENGINE_TIMEOUT_S:.0f} s"
    except OSError as e:
        why = str(e)
    else:
        if res.returncode == 0 and res.stdout.strip():
            return
        lines = [ln.strip() for ln in (res.stderr or res.stdout).splitlines() if ln.strip()]
        why = lines[-1] if lines else f"`{binary} version` exited {res.returncode}"
        if why.startswith("Cannot connect to the Docker daemon"):
            why = "nothing listens there"      # the client's words repeat the endpoint
    raise InputError(None, field, f"no docker engine (dockerd) answers at {engine_endpoint()} "
                     f"({why})", START_ENGINE)


def image_present(name: str, binary: str = "docker") -> bool:
    res = subprocess.run([binary, "image", "inspect", "--format", "{{.Id}}", name],
                         capture_output=True, text=True, timeout=60)
    return res.returncode == 0


def missing_image(name: str, recipe_image: str | None) -> InputError:
    """One line: what is missing and the command that makes it (never a pull). ``recipe_image``:
    the current recipe's image name (only that one is made by the build command)."""
    fix = (f"build it with `{BUILD_COMMAND}`" if name == recipe_image else
           f"load it into this engine (`docker load`), or leave sandbox.image empty to use "
           f"monitorbench's own image (`{BUILD_COMMAND}`)")
    return InputError(None, "sandbox.image", f"docker image {name!r} is not in the engine", fix)


def debian_mirror(sources: Iterable[Path] = (Path("/etc/apt/sources.list"),
                                             *sorted(Path("/etc/apt/sources.list.d").glob("*")))
                  ) -> str:
    """The first plain Debian archive this host's apt uses (not the security archive)."""
    for path in sources:
        try:
            text = path.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.lstrip().startswith("#"):
                continue
            for url in re.findall(r"(https?://\S+)", line):
                if "security" not in url and "debian" in url:
                    return url.rstrip("/")
    return "http://deb.debian.org/debian"


def _run(argv: list[str], log: Callable[[str], None], **kw) -> None:
    log("$ " + " ".join(argv[:6]) + (" ..." if len(argv) > 6 else ""))
    res = subprocess.run(argv, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise MonitorbenchError(f"{argv[0]} {argv[1]} failed ({res.returncode}): "
                                f"{(res.stderr or res.stdout).strip()[-800:]}")


def build_base(recipe: ImageRecipe, mirror: str, binary: str, log: Callable[[str], None]) -> str:
    """debootstrap the base root filesystem and import it (about 2 minutes)."""
    name = base_name(recipe)
    if image_present(name, binary):
        return name
    with tempfile.TemporaryDirectory(prefix="mb-rootfs-") as tmp:
        root = Path(tmp) / "root"
        _run(["debootstrap", f"--variant={recipe.variant}", f"--include={','.join(recipe.include)}",
              recipe.suite, str(root), mirror], log)
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for p in (root / junk).glob("*"):
                if p.is_file():
                    p.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        try:
            _run([binary, "import", "-c", 'CMD ["python3"]', "-", name], log, stdin=tar.stdout)
        finally:
            tar.stdout.close()
            tar.wait()
    return name


def copy_distributions(recipe: ImageRecipe, site: Path) -> int:
    """Copy every file of the recipe's distributions that lives under site-packages (console
    scripts elsewhere are left out: nothing in the sandbox runs them)."""
    purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
    count = 0
    for dist in closure(recipe.distributions).values():
        for f in dist.files or []:
            src = Path(dist.locate_file(f)).resolve()
            if purelib not in src.parents or not src.is_file() or src.suffix == ".pyc":
                continue
            dst = site / src.relative_to(purelib)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
            count += 1
    return count


def check_python(name: str, binary: str) -> None:
    """Refuse an image whose python3 is another minor version than the framework's."""
    res = subprocess.run([binary, "run", "--rm", "--pull", "never", "--network", "none", name,
                          "python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, timeout=120)
    got = res.stdout.strip()
    if got != python_minor():
        raise MonitorbenchError(f"image {name}: python3 is {got or res.stderr.strip()[-200:]!r}, "
                                f"the framework runs {python_minor()}; compiled packages copied "
                                "into it would not load (change ImageRecipe.suite)")


def build_image(recipe: ImageRecipe, mirror: str | None = None,
                binary: str = "docker", log: Callable[[str], None] = print) -> str:
    """Build (or find) the recipe's image; returns its name. Never contacts a registry: the
    base comes from the Debian mirror and the build runs without network or pulls."""
    name = image_name(recipe)
    require_engine(binary, field=None)   # before debootstrap, which needs minutes
    if image_present(name, binary):
        log(f"{name} is already built")
        return name
    base = build_base(recipe, mirror or debian_mirror(), binary, log)
    with tempfile.TemporaryDirectory(prefix="mb-image-") as tmp:
        ctx = Path(tmp)
        (ctx / "Dockerfile").write_text(dockerfile(base))
        log(f"copying {copy_distributions(recipe, ctx / 'site')} files of "
            f"{len(closure(recipe.distributions))} distributions")
        _run([binary, "build", "--pull=false", "--network", "none", "-q", "-t", name, str(ctx)],
             log)
    check_python(name, binary)
    log(f"built {name}")
    return name
