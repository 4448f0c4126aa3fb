"""The docker backend's image for the registered sources: the one place that joins the sources'
``sandbox_distributions`` into the sandbox layer's :class:`~monitorbench.sandbox.image.ImageRecipe`.

Why here, above the sandbox: the sandbox layer knows no source (a source is reached through its
spec only), so it is handed the recipe; every caller that names the image (the run key, the
verdict cache, the run's sandbox, ``monitorbench sandbox build-image``) asks this module, so they
agree on one image.
"""

from __future__ import annotations

from monitorbench.config import SandboxConfig
from monitorbench.sandbox.image import ImageRecipe, image_name
from monitorbench.suites.source_registry import get_source, source_names


def image_recipe() -> ImageRecipe:
    """The recipe whose image carries every registered source's runtime distributions."""
    dists = {d for name in source_names()
             for d in get_source(name).sandbox_distributions}
    return ImageRecipe(distributions=tuple(dists))


def resolve_image(configured: str | None) -> str:
    """The image a run uses: the one the user named, else the recipe's."""
    return configured or image_name(image_recipe())


def run_image(sandbox: SandboxConfig) -> str | None:
    """The image a run's sandbox config judges in: None unless the backend is docker."""
    return resolve_image(sandbox.image) if sandbox.backend == "docker" else None
