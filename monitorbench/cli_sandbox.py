"""``monitorbench sandbox build-image``: build the docker backend's image from its recipe.

The image (``monitorbench-sandbox:<recipe hash>``) is made from the Debian mirror alone
(debootstrap, then the sources' runtime packages copied from this environment); no registry is
contacted. Building an image that exists already is a no-op that prints its name.
"""

from __future__ import annotations

import argparse
import sys

from monitorbench.sandbox.image import build_image, debian_mirror, image_name
from monitorbench.suites.sandbox_image import image_recipe

EXAMPLES = """examples:
  monitorbench sandbox build-image
  monitorbench sandbox build-image --mirror http://deb.debian.org/debian
  monitorbench sandbox image-name     # what sandbox=docker runs, without building"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="monitorbench sandbox", description=__doc__.splitlines()[0]
                                 .strip("`"), epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["build-image", "image-name"])
    ap.add_argument("--mirror", default=None,
                    help=f"Debian archive for debootstrap (default: this host's apt source, "
                         f"now {debian_mirror()})")
    ap.add_argument("--binary", default="docker", help="the docker client to use")
    return ap


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.what == "image-name":
        print(image_name(image_recipe()))
        return 0
    name = build_image(image_recipe(), mirror=args.mirror, binary=args.binary,
                       log=lambda line: print(line, file=sys.stderr))
    print(name)
    return 0
