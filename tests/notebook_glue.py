"""The ``{glue}`` names a chapter shows that its code does not glue by a literal name.

A chapter whose numbers are computed by a library function (``{glue name: text}``) glues them in a loop,
which the structure check (:func:`proofbook.cli.check.glue_problems`) cannot follow; the test of that
function checks instead that it returns every name the chapter shows and glues nowhere else.
"""
import ast
import re

import jupytext

from proofbook.core.paths import PROJECT_ROOT

_SHOWN = re.compile(r"\{glue(?::[a-z]*)?\}`([^`:]+)(?::[^`]*)?`")


def shown_not_glued_by_name(chapter: str) -> set[str]:
    """Names ``notebooks/<chapter>.py`` shows with ``{glue}`` that no ``glue("name", ...)`` or ``glue(f"...")``
    of its code matches."""
    notebook = jupytext.read(PROJECT_ROOT / "notebooks" / f"{chapter}.py", fmt="py:percent")
    shown: set[str] = set()
    patterns: list[re.Pattern] = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            shown.update(_SHOWN.findall(cell.source))
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glue" and node.args:
                name = node.args[0]
                if isinstance(name, ast.Constant):
                    patterns.append(re.compile(re.escape(name.value)))
                elif isinstance(name, ast.JoinedStr):
                    patterns.append(re.compile("".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+"
                                                       for v in name.values)))
    return {name for name in shown if not any(p.fullmatch(name) for p in patterns)}
