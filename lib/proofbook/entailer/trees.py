"""Entailment trees built by Entailer's search, with every node's scores, rendered as text and HTML.

Entailer (Tafjord et al. 2022, §3.2-3.3) explains an answer with a tree: the root is
the hypothesis, each expanded node has premises that together entail it, and every node carries

* ``direct`` -- s_d(N), the model's belief that N is true (H -> Sd), or a belief taught through the
  memory (``source == "memory"``, :mod:`proofbook.entailer.memory`);
* for an expanded node, ``entailment`` -- s_e(P |- N) of its chosen premises, and its proof score
  s_r(N) = (prod_i s(p_i)) * s_e(P |- N), where s(p_i) is each premise's selected score (its proof
  score if it kept a proof, else its direct score);
* ``candidates`` -- every premise set considered at this node (sampled or greedy), with the premise
  scores, the inference score, the product used for ranking, and why it was rejected if it was.

A node keeps its proof when s_r(N) > c_d(N) = max(s_d(N), 1 - s_d(N)) (the top-level hypothesis always
keeps its best proof); otherwise it is a leaf whose score is s_d(N).  :func:`render_text` and
:func:`render_html` show a tree with these numbers; the HTML has no scripts or external resources.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Iterator


@dataclass
class Candidate:
    """One premise set proposed for a node, with its scores.

    ``premise_scores`` are the premises' direct scores s_d(p_i) (memory overrides included);
    ``score`` = prod(premise_scores) * entailment, the ranking score of the paper's one step;
    ``rejected`` names the reason ("premise score < 0.5" ...) or is ``None`` for a survivor.
    """

    premises: tuple[str, ...]
    premise_scores: tuple[float, ...]
    entailment: float
    rejected: str | None = None
    #: where each premise score came from: "model" or "memory" (a taught belief)
    premise_sources: tuple[str, ...] = ()

    @property
    def score(self) -> float:
        return math.prod(self.premise_scores) * self.entailment


@dataclass
class ProofNode:
    """A node of an entailment tree: a statement, its direct score and (if expanded) its proof."""

    statement: str
    direct: float
    source: str = "model"
    depth: int = 0
    premises: list["ProofNode"] = field(default_factory=list)
    entailment: float | None = None
    candidates: list[Candidate] = field(default_factory=list)
    #: why a node was not expanded or its proof dropped ("depth limit", "proof 0.41 <= direct 0.80" ...)
    note: str = ""
    #: the proof score s_r of a premise whose proof the search dropped because it did not beat c_d
    dropped_proof: float | None = None

    @property
    def expanded(self) -> bool:
        return bool(self.premises)

    @property
    def direct_confidence(self) -> float:
        """c_d(N) = max(s_d(N), 1 - s_d(N))."""
        return max(self.direct, 1.0 - self.direct)

    @property
    def proof_score(self) -> float | None:
        """s_r(N) = (prod_i s(p_i)) * s_e(P |- N) for an expanded node, else ``None``."""
        if not self.expanded or self.entailment is None:
            return None
        return math.prod(p.score for p in self.premises) * self.entailment

    @property
    def score(self) -> float:
        """The node's selected score: its proof score if it kept a proof, else its direct score."""
        proof = self.proof_score
        return proof if proof is not None else self.direct

    def walk(self) -> Iterator["ProofNode"]:
        """This node and every node below it, depth first."""
        yield self
        for premise in self.premises:
            yield from premise.walk()

    def memory_uses(self) -> int:
        """How many premise scores in this tree (chosen nodes and every candidate) came from the memory."""
        return sum((node.source == "memory") + sum(s == "memory" for c in node.candidates for s in c.premise_sources)
                   for node in self.walk())

    def leaves(self) -> list["ProofNode"]:
        """The nodes of this tree that were not expanded, depth first."""
        return [node for node in self.walk() if not node.expanded]

    @property
    def height(self) -> int:
        """0 for a leaf, else 1 + the highest premise."""
        return 1 + max(p.height for p in self.premises) if self.premises else 0

    def to_dict(self) -> dict:
        """A JSON-able copy (for caches and results)."""
        return {"statement": self.statement, "direct": self.direct, "source": self.source, "depth": self.depth,
                "entailment": self.entailment, "note": self.note, "dropped_proof": self.dropped_proof,
                "premises": [p.to_dict() for p in self.premises],
                "candidates": [{"premises": list(c.premises), "premise_scores": list(c.premise_scores),
                                "entailment": c.entailment, "rejected": c.rejected,
                                "premise_sources": list(c.premise_sources)} for c in self.candidates]}

    @classmethod
    def from_dict(cls, data: dict) -> "ProofNode":
        """The tree that :meth:`to_dict` wrote."""
        return cls(statement=data["statement"], direct=data["direct"], source=data.get("source", "model"),
                   depth=data.get("depth", 0), entailment=data.get("entailment"), note=data.get("note", ""),
                   dropped_proof=data.get("dropped_proof"), premises=[cls.from_dict(p) for p in data.get("premises", [])],
                   candidates=[Candidate(tuple(c["premises"]), tuple(c["premise_scores"]), c["entailment"],
                                         c.get("rejected"), tuple(c.get("premise_sources", ())))
                               for c in data.get("candidates", [])])


def _scores(node: ProofNode) -> str:
    parts = [f"direct {node.direct:.2f}" + (" (memory)" if node.source == "memory" else "")]
    if node.expanded:
        parts.append(f"entail {node.entailment:.2f}")
        parts.append(f"proof {node.proof_score:.2f}")
    return ", ".join(parts)


def render_text(node: ProofNode, candidates: bool = False) -> str:
    """The tree as indented text, one node per line with its scores; ``candidates`` lists every
    premise set considered at each expanded node (rejected ones marked ``x``)."""
    lines = [f"{node.statement}  [{_scores(node)}; score {node.score:.2f}]"]
    _text_children(node, "", lines, candidates)
    return "\n".join(lines)


def _text_children(node: ProofNode, prefix: str, lines: list[str], candidates: bool) -> None:
    if candidates and node.candidates:
        for candidate in node.candidates:
            mark = "x" if candidate.rejected else "+"
            sources = candidate.premise_sources or ("model",) * len(candidate.premises)
            premises = " & ".join(f"{p} ({s:.2f}{', memory' if src == 'memory' else ''})"
                                  for p, s, src in zip(candidate.premises, candidate.premise_scores, sources))
            why = f" -- rejected: {candidate.rejected}" if candidate.rejected else ""
            lines.append(f"{prefix}  {mark} candidate: {premises} => entail {candidate.entailment:.2f}, "
                         f"score {candidate.score:.2f}{why}")
    if node.note:
        lines.append(f"{prefix}  ({node.note})")
    for i, premise in enumerate(node.premises):
        last = i == len(node.premises) - 1
        lines.append(f"{prefix}{'└── ' if last else '├── '}{premise.statement}  [{_scores(premise)}]")
        _text_children(premise, prefix + ("    " if last else "│   "), lines, candidates)


def _score_span(label: str, value: float | None, css: str) -> str:
    if value is None:
        return ""
    return f'<span class="{css}" title="{label}">{label} {value:.2f}</span>'


def _html_node(node: ProofNode, candidates: bool) -> str:
    e = html.escape
    scores = [_score_span("direct", node.direct, "sd"), _score_span("entail", node.entailment, "se"),
              _score_span("proof", node.proof_score, "sr")]
    memory = ' <span class="mem">memory</span>' if node.source == "memory" else ""
    parts = [f'<li><span class="stmt">{e(node.statement)}</span> ' + " ".join(s for s in scores if s) + memory]
    if node.note:
        parts.append(f' <span class="note">({e(node.note)})</span>')
    if candidates and node.candidates:
        rows = []
        for c in node.candidates:
            premises = "<br>".join(f"{e(p)} ({s:.2f})" for p, s in zip(c.premises, c.premise_scores))
            status = e(f"rejected: {c.rejected}") if c.rejected else "kept"
            rows.append(f"<tr><td>{premises}</td><td>{c.entailment:.2f}</td><td>{c.score:.2f}</td><td>{status}</td></tr>")
        parts.append('<table class="cands"><tr><th>candidate premises (direct)</th><th>entail</th>'
                     '<th>score</th><th></th></tr>' + "".join(rows) + "</table>")
    if node.premises:
        parts.append("<ul>" + "".join(_html_node(p, candidates) for p in node.premises) + "</ul>")
    parts.append("</li>")
    return "".join(parts)


_STYLE = ("<style>.entailer-tree ul{list-style:none;margin-left:1.2em;padding-left:.6em;border-left:1px solid #bbb}"
          ".entailer-tree span.sd,.entailer-tree span.se,.entailer-tree span.sr,.entailer-tree span.mem"
          "{font-size:85%;padding:0 .3em;margin-left:.2em;border-radius:3px}"
          ".entailer-tree .sd{background:#e8f0fe}.entailer-tree .se{background:#fef3e0}"
          ".entailer-tree .sr{background:#e6f4ea}.entailer-tree .mem{background:#fce8e6}"
          ".entailer-tree .note{color:#666;font-size:85%}.entailer-tree table.cands{font-size:80%;margin:.2em 0}"
          ".entailer-tree table.cands td{padding:0 .4em;vertical-align:top}</style>")


def render_html(node: ProofNode, candidates: bool = False, title: str | None = None) -> str:
    """The tree as a self-contained HTML fragment (nested lists, scores as coloured labels)."""
    heading = f"<div><b>{html.escape(title)}</b></div>" if title else ""
    return f'{_STYLE}<div class="entailer-tree">{heading}<ul>{_html_node(node, candidates)}</ul></div>'


class TreeView:
    """Wraps a tree so that a notebook shows it as HTML (``_repr_html_``) and ``print`` as text."""

    def __init__(self, node: ProofNode, candidates: bool = False, title: str | None = None):
        self.node, self.candidates, self.title = node, candidates, title

    def _repr_html_(self) -> str:
        return render_html(self.node, self.candidates, self.title)

    def __str__(self) -> str:
        text = render_text(self.node, self.candidates)
        return f"{self.title}\n{text}" if self.title else text

    __repr__ = __str__
