"""Rendering shared by the book's chapters: the plotting style and ``save_figure``
(:mod:`~proofbook.render.figures`), filterable tables, the report's claims figure, and AdMIRaL's
retrieval frames.  Renderers read plain attributes of the objects they show and import no paper package."""
