"""The command line behind ``python -m proofbook``: the notebook runner, the results check, the book's browser
check and ``explain``.  The only layer that may import every paper package."""
