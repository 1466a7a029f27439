"""Pictures of the methods' mechanisms, drawn from the objects the library computes with.

Results figures show what a method scored; these show how it works, on the chapter's worked example, so
a reader sees the mechanism before any table.  Each function takes plain data or duck-typed objects (this
floor sits below the papers' packages) and returns a matplotlib figure for
:func:`proofbook.render.figures.save_figure`:

* :func:`automaton_figure` -- the natural-logic automaton of ProoFVer / AdMIRaL's proofs (Krishna et al.
  2022, Fig. 2; Aly & Vlachos 2022, §3.3): three states, one arrow per operator, the worked proof's path
  numbered;
* :func:`prefix_tree_figure` -- a slice of the prefix tree that constrains title generation (GENRE, De Cao
  et al. 2021, §2.3; AdMIRaL §3.2): the titles' tokens, with runs of single-child nodes merged, and the
  path of one title highlighted;
* :func:`loop_figure` -- AdMIRaL's retrieval loop (§3) for one claim: iteration 1's candidates, the
  reranked sentences that are the hop's input, the hop's new titles and the final ranked list;
* :func:`pipeline_figure` -- claims in the wild's five stages (Chen et al. 2023, §3) for one claim: the
  questions, the filtered search, fine-grained retrieval, the summaries and the veracity label;
* :func:`tree_figure` -- an Entailer entailment tree (Tafjord et al. 2022, §3) as a graph: each node's
  statement with its direct score s_d and, where it kept a proof, its proof score s_r; each proof's
  entailment score s_e on its edges.

Gold documents and chosen paths are drawn in :data:`GOLD`; everything else in greys, so the pictures
read in black and white too (gold nodes are also bold).
"""
from __future__ import annotations

import math
import textwrap
from typing import Callable, Mapping, Sequence

#: the colour of gold documents and of the path being followed; :data:`MUTED` for everything else
GOLD, MUTED, INK = "#1b7837", "#9e9e9e", "#212121"
#: the automaton's states' colours (supports, refutes, not enough info)
STATE_COLOURS = {"SUPPORTS": "#2e7d32", "REFUTES": "#c62828", "NOT ENOUGH INFO": "#616161"}


def _figure(width: float, height: float):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, height))
    ax.set_axis_off()
    return fig, ax


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


# -- the natural-logic automaton ------------------------------------------------------------------

def automaton_figure(transitions: Mapping[str, Mapping[str, str]], operators: Sequence[str] = (),
                     path: Sequence[str] = ("SUPPORTS",), words: Mapping[str, str] | None = None):
    """The automaton as a state diagram; the path of ``operators`` (a proof's) is drawn in :data:`GOLD`
    with each step's number.  ``path`` is the states the automaton visits reading them, the start included,
    as the prover runs it (``proofbook.admiral.prover.natlog.automaton_path``); ``words`` (operator -> its
    reading) adds a legend."""
    from matplotlib.patches import Circle, FancyArrowPatch

    path = list(path)
    if len(path) != len(operators) + 1:
        raise ValueError(f"a path of {len(operators)} operators visits {len(operators) + 1} states, got {len(path)}")
    start = path[0]
    states = list(transitions)
    places = {state: xy for state, xy in zip(states, [(0.0, 1.0), (2.4, 1.0), (1.2, -0.55)])}
    steps: dict[tuple[str, str], list[str]] = {}
    for number, (src, dst, op) in enumerate(zip(path, path[1:], operators), start=1):
        steps.setdefault((src, dst), []).append(f"{number}:{op}")
    fig, ax = _figure(7.0, 4.4)
    radius = 0.42
    for state, (x, y) in places.items():
        colour = STATE_COLOURS.get(state, INK)
        ax.add_patch(Circle((x, y), radius, facecolor="white", edgecolor=colour, linewidth=2.5 if state == start else 1.5))
        ax.text(x, y, state.replace(" ", "\n"), ha="center", va="center", fontsize=7.5, color=colour, weight="bold")
    for src in states:
        by_target: dict[str, list[str]] = {}
        for op, dst in transitions[src].items():
            by_target.setdefault(dst, []).append(op)
        for dst, ops in by_target.items():
            followed = (src, dst) in steps
            colour, width = (GOLD, 2.2) if followed else (MUTED, 1.0)
            label = " ".join(ops) + (f"   [{', '.join(steps[src, dst])}]" if followed else "")
            (x0, y0), (x1, y1) = places[src], places[dst]
            if src == dst:     # a self-loop: an arc above (or below) the state
                up = 1 if y0 > 0 else -1
                ax.add_patch(FancyArrowPatch((x0 - 0.18, y0 + up * radius * 0.9), (x0 + 0.18, y0 + up * radius * 0.9),
                                             connectionstyle=f"arc3,rad={-1.6 * up}", arrowstyle="-|>",
                                             mutation_scale=12, color=colour, linewidth=width))
                ax.text(x0, y0 + up * (radius + 0.42), label, ha="center", va="center", fontsize=8.5, color=colour)
                continue
            ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), connectionstyle="arc3,rad=0.18", arrowstyle="-|>",
                                         mutation_scale=14, color=colour, linewidth=width,
                                         shrinkA=radius * 72 / 1.05, shrinkB=radius * 72 / 1.05))
            # the label sits beside the arrow's middle, on the side the arc bends to
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            dx, dy = x1 - x0, y1 - y0
            norm = math.hypot(dx, dy) or 1.0
            ax.text(mx + 0.3 * dy / norm, my - 0.3 * dx / norm, label, ha="center", va="center", fontsize=8.5,
                    color=colour, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    if words:
        legend = "\n".join(f"{op}  {reading}" for op, reading in words.items())
        ax.text(3.15, 0.2, legend, ha="left", va="center", fontsize=8, family="DejaVu Sans Mono", color=INK)
    ax.set_xlim(-0.6, 4.9)
    ax.set_ylim(-1.4, 2.0)
    ax.set_aspect("equal")
    verdict = path[-1]
    ax.set_title(f"proof {' '.join(operators) or '(empty)'}: {' -> '.join(path)}" if operators
                 else "the natural-logic automaton", fontsize=10, color=STATE_COLOURS.get(verdict, INK))
    return fig


# -- the prefix tree --------------------------------------------------------------------------------

def token_tree(titles: Sequence[str], tokenize: Callable[[str], Sequence[str]]) -> dict:
    """The prefix tree of the titles' token sequences, with every run of single-child nodes merged into one
    node (a radix tree).  A node is ``{"label": str, "children": [...], "title": str | None}``; the root's
    label is empty.  A title that is a prefix of another ends at an inner node (its ``title`` is set)."""
    root: dict = {}
    ends: dict[tuple, str] = {}
    for title in titles:
        node, prefix = root, ()
        for token in tokenize(title):
            node = node.setdefault(token, {})
            prefix += (token,)
        ends[prefix] = title

    def build(label_tokens: list[str], children: dict, prefix: tuple) -> dict:
        while len(children) == 1 and prefix not in ends:
            (token, grandchildren), = children.items()
            label_tokens, children, prefix = label_tokens + [token], grandchildren, prefix + (token,)
        return {"label": " ".join(label_tokens), "title": ends.get(prefix),
                "children": [build([token], sub, prefix + (token,)) for token, sub in children.items()]}

    return build([], root, ())


def _leaves(node: dict) -> int:
    return sum(_leaves(child) for child in node["children"]) if node["children"] else 1


def _on_path(node: dict, title: str | None) -> set[int]:
    """The ids of the nodes whose subtree holds ``title`` (the path from the root to it; empty for None)."""
    if title is None:
        return set()
    found = set().union(*(_on_path(child, title) for child in node["children"]))
    return found | {id(node)} if found or node["title"] == title else found


def prefix_tree_figure(titles: Sequence[str], tokenize: Callable[[str], Sequence[str]], highlight: str | None = None,
                       allowed_first: int | None = None):
    """A slice of the title prefix tree: one column per branching step, one row per title; the path to
    ``highlight`` (e.g. the gold title) in :data:`GOLD`.  ``allowed_first`` (how many first tokens the
    whole tree allows) is written at the root, since the slice shows only these titles' branches."""
    tree = token_tree(sorted(dict.fromkeys(titles)), tokenize)
    rows = _leaves(tree)
    fig, ax = _figure(8.0, max(2.4, 0.34 * rows + 0.8))
    placed: list[tuple[int, float, dict]] = []

    def place(node: dict, depth: int, top: float) -> float:
        if not node["children"]:
            y = top
        else:
            ys, cursor = [], top
            for child in node["children"]:
                ys.append(place(child, depth + 1, cursor))
                cursor += _leaves(child)
            y = sum(ys) / len(ys)
        placed.append((depth, y, node))
        return y

    place(tree, 0, 0.0)
    where = {id(node): (depth, y) for depth, y, node in placed}
    depth_max = max(depth for depth, *_ in placed)
    marked = _on_path(tree, highlight)
    for depth, y, node in placed:
        on_path = id(node) in marked
        for child in node["children"]:
            cd, cy = where[id(child)]
            child_on = id(child) in marked
            ax.plot([depth + 0.05, cd - 0.05], [y, cy], color=GOLD if child_on else MUTED,
                    linewidth=2.0 if child_on else 0.8, zorder=1)
        label = node["label"] or ("start" + (f"\n({allowed_first} first tokens allowed)" if allowed_first else ""))
        if not node["label"] and not node["children"]:
            continue
        is_end = node["title"] is not None
        ax.text(depth, y, _short(label, 28) if node["label"] else label, ha="center", va="center", fontsize=8,
                color=GOLD if on_path else INK, weight="bold" if on_path and is_end else "normal",
                bbox={"boxstyle": "round,pad=0.25", "facecolor": "#f1f8e9" if on_path else "white",
                      "edgecolor": GOLD if on_path else (INK if is_end else MUTED), "linewidth": 0.8}, zorder=2)
    ax.set_xlim(-0.6, depth_max + 0.7)
    ax.set_ylim(rows - 0.4, -0.8)
    return fig


# -- AdMIRaL's loop ---------------------------------------------------------------------------------

def _stage(ax, y: float, name: str, lines: Sequence[tuple[str, bool]], height: float) -> None:
    """One stage of the loop: its name on the left, its lines (text, gold?) in a box on the right."""
    from matplotlib.patches import FancyBboxPatch

    ax.text(0.0, y - height / 2, name, ha="left", va="center", fontsize=9, weight="bold", color=INK)
    ax.add_patch(FancyBboxPatch((2.3, y - height + 0.08), 7.6, height - 0.16, boxstyle="round,pad=0.02",
                                facecolor="white", edgecolor=MUTED, linewidth=0.8))
    for i, (text, gold) in enumerate(lines):
        ax.text(2.45, y - 0.32 - 0.36 * i, text, ha="left", va="center", fontsize=8,
                color=GOLD if gold else INK, weight="bold" if gold else "normal")


def loop_figure(trace, gold_titles: Sequence[str], top: int = 3, width: int = 86):
    """The loop for one claim, top to bottom: the claim; iteration 1's GENRE titles and BM25 pages; the
    reranked sentences (the hop's input); each hop's kept new titles; the final ranking.  ``trace`` is an
    AdMIRaL retrieval trace (``claim``, ``genre``, ``bm25``, ``initial_selected``, ``hops``, ``ranking()``);
    gold pages in :data:`GOLD`, with a check mark."""
    gold = set(gold_titles)

    def mark(title: str) -> tuple[str, bool]:
        return (f"{'✓ ' if title in gold else ''}{title}", title in gold)

    stages = [("claim", [(line, False) for line in textwrap.wrap(trace.claim, width)[:3]]),
              ("iteration 1:\nGENRE titles", [mark(b.title) for b in trace.genre[:top]] or [("(none)", False)]),
              ("iteration 1:\nBM25 pages", [mark(title) for title, _ in trace.bm25[:top]])]
    sentences = [(f"{s.title}: {s.text}", s.title in gold) for s, _ in trace.initial_selected[:4]]
    stages.append(("reranked sentences\n(the hop's input)",
                   [(("✓ " if g else "") + _short(text, width), g) for text, g in sentences]))
    for hop in trace.hops:
        kept = [mark(title) for title in hop.new_documents[:top]] or [("(no new title)", False)]
        stages.append((f"iteration {hop.iteration}:\nnew titles", kept))
    ranking = trace.ranking()[:5]
    stages.append(("ranked list (top 5)", [(f"{i}. {'✓ ' if t in gold else ''}{t}", t in gold)
                                           for i, t in enumerate(ranking, 1)]))
    return _stages_figure(stages)


def _stages_figure(stages: Sequence[tuple[str, Sequence[tuple[str, bool]]]]):
    """Stages top to bottom, each a name and a box of lines (text, gold?), joined by arrows."""
    heights = [0.36 * max(1, len(lines)) + 0.3 for _, lines in stages]
    total = sum(heights) + 0.3 * (len(stages) - 1)
    fig, ax = _figure(9.0, 0.62 * total + 0.4)
    y = total
    for number, ((name, lines), height) in enumerate(zip(stages, heights)):
        _stage(ax, y, name, lines, height)
        y -= height
        if number < len(stages) - 1:
            ax.annotate("", xy=(6.1, y - 0.22), xytext=(6.1, y + 0.06),
                        arrowprops={"arrowstyle": "-|>", "color": MUTED, "linewidth": 1.0})
            y -= 0.3
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.1, total + 0.1)
    return fig


# -- claims in the wild's pipeline -----------------------------------------------------------------------

def pipeline_figure(trace, labels: Sequence[str], gold_label: str | None, irrelevant: str, top: int = 3,
                    width: int = 86):
    """The five stages for one claim, top to bottom, with what each made of it: the questions, the pages the
    search kept and what each filter dropped, the windows, spans and documents of fine-grained retrieval, the
    relevant summaries, and the veracity classifier's label.  ``trace`` is a claims-in-the-wild pipeline trace
    (``claim``, ``questions``, ``search``, ``retrieval``, ``documents``, ``summaries``, ``probabilities``);
    ``irrelevant`` is the summary of an irrelevant document; a predicted label equal to ``gold_label`` is drawn
    in :data:`GOLD`."""
    claim = trace.claim
    speaker = " ".join(x for x in (getattr(claim, "person", ""), getattr(claim, "venue", "")) if x)
    head = [(line, False) for line in textwrap.wrap(f"{speaker} {claim.claim}".strip(), width)[:3]]
    questions = [(f"{len(trace.questions)} yes/no questions, e.g.", False)]
    questions += [(_short(q, width), False) for q in trace.questions[:2]]
    dropped = ", ".join(f"{reason} {n}" for reason, n in sorted(trace.search.dropped.items())) or "nothing"
    search = [(f"{len(trace.search.pages)} pages kept", False), (f"dropped: {dropped}", False)]
    r = trace.retrieval
    retrieval = [(f"{len(r.windows)} windows -> {len(r.kept)} kept -> {len(r.merged)} spans -> "
                  f"{len(r.documents)} documents:", False)]
    retrieval += [(_short(page.title, width), False) for page in trace.documents[:top]]
    relevant = [text for text in trace.summaries if text != irrelevant]
    summaries = [(f"{len(relevant)} of {len(trace.summaries)} documents relevant", False)]
    summaries += [(_short(text, width), False) for text in relevant[:2]]
    verdict = [("(no classifier)", False)]
    if "web-summaries" in trace.probabilities:
        probabilities = list(trace.probabilities["web-summaries"])
        best = max(range(len(labels)), key=probabilities.__getitem__)
        verdict = [(f"{'✓ ' if labels[best] == gold_label else ''}predicted {labels[best]} "
                    f"(probability {probabilities[best]:.2f})", labels[best] == gold_label)]
    if gold_label is not None:
        verdict.append((f"PolitiFact's label: {gold_label}", False))
    return _stages_figure([("claim", head), ("1. decomposition", questions),
                           ("2. search (date\nand site filters)", search), ("3. fine-grained\nretrieval", retrieval),
                           ("4. claim-focused\nsummaries", summaries), ("5. veracity", verdict)])


# -- Entailer's entailment trees ------------------------------------------------------------------------

def _tree_width(node) -> int:
    return sum(_tree_width(p) for p in node.premises) if node.premises else 1


def tree_figure(root, width: int = 30):
    """An entailment tree top-down: each node's statement (wrapped to ``width`` characters) with s_d and,
    for a node that kept its proof, s_r; each proof's s_e beside its edges.  ``root`` is a proof node
    (``statement``, ``direct``, ``premises``, ``entailment``, ``proof_score``, ``source``); memory
    beliefs are marked."""
    columns = _tree_width(root)
    levels = 1 + root.height
    fig, ax = _figure(max(5.0, 2.6 * columns), 1.9 * levels + 0.2)
    boxes: list[tuple[float, float, object]] = []

    def place(node, left: float, level: int) -> float:
        span = _tree_width(node)
        x = left + span / 2
        if node.premises:
            cursor, xs = left, []
            for premise in node.premises:
                xs.append(place(premise, cursor, level + 1))
                cursor += _tree_width(premise)
            for px in xs:    # centre to centre, under the boxes
                ax.plot([x, px], [-level, -level - 1], color=GOLD, linewidth=1.2, zorder=1)
            if node.entailment is not None:
                ax.text(x + 0.08, -level - 0.5, f"s_e {node.entailment:.2f}", fontsize=8, color=GOLD, ha="left",
                        va="center", bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5}, zorder=3)
        boxes.append((x, -level, node))
        return x

    place(root, 0.0, 0)
    for x, y, node in boxes:
        scores = f"s_d {node.direct:.2f}"
        if node.proof_score is not None:
            scores += f"   s_r {node.proof_score:.2f}"
        if node.source == "memory":
            scores += "   (memory)"
        text = "\n".join(textwrap.wrap(node.statement, width)[:4]) + "\n" + scores
        ax.text(x, y, text, ha="center", va="center", fontsize=7.5, color=INK,
                weight="bold" if y == 0 else "normal",
                bbox={"boxstyle": "round,pad=0.35", "facecolor": "#f1f8e9" if node.premises else "white",
                      "edgecolor": GOLD if node.premises else MUTED, "linewidth": 0.9}, zorder=2)
    ax.set_xlim(-0.1, columns + 0.1)
    ax.set_ylim(-levels + 0.45, 0.55)
    return fig
