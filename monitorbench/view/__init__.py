"""``monitorbench view``: see why a verifier got each case right or wrong.

A static site built from what a run already wrote (judgments, metrics, the suite's hidden
candidates, the generation cache's verifier code and trace), so nothing is re-executed and the
pages show exactly what was judged. :mod:`~monitorbench.view.load` joins the files,
:mod:`~monitorbench.view.render` writes escaped HTML, :mod:`~monitorbench.view.site` lays out
and serves the site.
"""
