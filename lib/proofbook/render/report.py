"""The reproduction report's figure: each claim's value in this run against the paper's number."""
from __future__ import annotations

from typing import Sequence

from proofbook.core.paper_claims import CONTRADICTED, HOLDS, INCONCLUSIVE, UNTESTED, Verdict

COLOURS = {HOLDS: "#009E73", INCONCLUSIVE: "#E69F00", CONTRADICTED: "#D55E00", UNTESTED: "#999999"}


def claims_figure(found: Sequence[Verdict]):
    """Two panels: differences and fractions (left), ratios on a log axis (right).  Per claim: this
    run's value (a dot coloured by verdict, with its 95% interval where there is one), the paper's number
    (a cross) and the rule's threshold (a grey bar)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    groups = [[v for v in found if v.claim.kind != "ratio"], [v for v in found if v.claim.kind == "ratio"]]
    heights = [max(1, len(g)) for g in groups]
    fig, axes = plt.subplots(2, 1, figsize=(8, 0.32 * sum(heights) + 1.6), gridspec_kw={"height_ratios": heights})
    for ax, group, log in zip(axes, groups, (False, True)):
        for y, v in enumerate(group):
            thresholds = v.claim.threshold if v.claim.side == "between" else (v.claim.threshold,)
            for t in thresholds:
                ax.plot([t, t], [y - 0.35, y + 0.35], color="#bbbbbb", lw=2, zorder=1)
            if v.claim.paper_value is not None:
                ax.plot(v.claim.paper_value, y, marker="x", color="black", ms=6, zorder=3)
            if v.value is not None:
                if v.low is not None and v.high is not None:
                    ax.plot([v.low, v.high], [y, y], color=COLOURS[v.code], lw=1.5, zorder=2)
                ax.plot(v.value, y, marker="o", color=COLOURS[v.code], ms=6, zorder=4)
        ax.set_yticks(range(len(group)), [v.claim.id for v in group], fontsize=8)
        ax.set_ylim(len(group) - 0.5, -0.5)
        if log and group:
            ax.set_xscale("log")
        ax.set_xlabel("A / B (log scale)" if log else "value, or A - B")
    handles = [Line2D([], [], marker="o", ls="", color=c, label=name) for c, name in
               zip(COLOURS.values(), ("holds", "inconclusive", "contradicted", "untested"))]
    handles += [Line2D([], [], marker="x", ls="", color="black", label="paper"),
                Line2D([], [], color="#bbbbbb", lw=2, label="threshold")]
    axes[0].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0 + 1.2 / heights[0]), ncol=6,
                   fontsize=8)
    fig.tight_layout()
    return fig
