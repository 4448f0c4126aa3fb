"""Task sources, each described once by a :class:`~monitorbench.suites.source_spec.SourceSpec`.

A built-in source is a subpackage ``monitorbench/sources/<name>/`` whose ``__init__`` defines
``SPEC`` and imports nothing heavy; a third-party package adds a source through the entry-point
group ``monitorbench.sources``. :mod:`monitorbench.suites.source_registry` finds both, lazily.
"""
