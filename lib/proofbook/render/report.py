"""The reproduction report's summary, glue and figure: each claim's value in this run against the paper's
number, for the paper's method and for the stand-in."""
from __future__ import annotations

from typing import Sequence

from proofbook.core import paper_claims
from proofbook.core.paper_claims import CONTRADICTED, HOLDS, INCONCLUSIVE, UNTESTED, VERDICT_NAMES, Verdict

COLOURS = {HOLDS: "#009E73", INCONCLUSIVE: "#E69F00", CONTRADICTED: "#D55E00", UNTESTED: "#999999"}


def verdict_summary(found: Sequence[Verdict]):
    """Claims per paper and verdict, for the paper's method and for the stand-in (``none`` without one)."""
    import pandas as pd

    frame = pd.DataFrame([{"paper": v.claim.paper, "paper's method": v.name,
                           "stand-in": v.stand_in.name if v.stand_in else "none"} for v in found])
    order = list(VERDICT_NAMES.values())
    parts = {}
    for column in ("paper's method", "stand-in"):
        counts = frame.groupby(["paper", column]).size().unstack(fill_value=0)
        counts = counts.reindex(columns=[c for c in order + ["none"] if c in counts.columns])
        counts.loc["all"] = counts.sum()
        parts[column] = counts
    return pd.concat(parts, axis=1).fillna(0).astype(int)


def summary_glue(found: Sequence[Verdict]) -> dict[str, object]:
    """The report's counts: ``n_<verdict>`` for the paper's method, ``n_claims``, ``n_stand_in`` and
    ``n_holds_stand_in``, ``n_family`` (verdicts with an interval) and ``n_holds_holm``; ``cpu``, the machine."""
    from proofbook.core import provenance

    kept = paper_claims.holm(found)
    shown: dict[str, object] = {f"n_{name}": sum(v.name == name for v in found) for name in VERDICT_NAMES.values()}
    with_stand_in = [v.stand_in for v in found if v.stand_in is not None]
    shown.update(n_claims=len(found), n_stand_in=len(with_stand_in),
                 n_holds_stand_in=sum(s.code == HOLDS for s in with_stand_in), n_family=len(kept),
                 n_holds_holm=sum(kept.values()), cpu=provenance.environment()["cpu"] or "an unknown CPU")
    return shown


def seeds_behind(found: Sequence[Verdict], rows_by_notebook) -> dict[str, tuple[int, float | None]]:
    """``claim id -> (seeds, spread)``: how many training seeds the row that decided the paper's-method verdict
    averages over, and the spread of its value across them (largest minus smallest), read from the chapter's
    rows ``<metric>:seeds`` and ``<metric>:seed_spread`` of that row's system (the paired ``A-vs-B`` of a
    difference).  A chapter that trained once writes no such rows: ``(1, None)``."""
    rows = paper_claims.index_rows(rows_by_notebook)
    behind = {}
    for v in found:
        claim, seeds, spread = v.claim, 1, None
        if v.split is not None:
            system = f"{claim.a.system}-vs-{claim.b.system}" if claim.kind == "difference" else claim.a.system
            key = (claim.a.notebook, claim.a.dataset, v.split, system)
            counted, spread_row = rows.get(key + (f"{claim.a.metric}:seeds",)), rows.get(
                key + (f"{claim.a.metric}:seed_spread",))
            if counted is not None:
                seeds, spread = int(counted["value"]), spread_row and spread_row["value"]
        behind[claim.id] = (seeds, spread)
    return behind


def seed_rows(found: Sequence[Verdict], rows_by_notebook) -> list[dict]:
    """Per claim decided on rows of this run (dataset ``claims``, system = claim id): ``seeds``, the training seeds
    behind its paper's-method verdict (:func:`seeds_behind`), and ``seed_spread`` where there are several."""
    behind, rows = seeds_behind(found, rows_by_notebook), []
    for v in found:
        if v.split is None:            # untested: no row was read
            continue
        seeds, spread = behind[v.claim.id]
        base = {"dataset": "claims", "split": v.split or "none", "system": v.claim.id, "n": v.n}
        rows.append({**base, "metric": "seeds", "value": seeds})
        if spread is not None:
            rows.append({**base, "metric": "seed_spread", "value": spread})
    return rows


def _marks(ax, y: float, v: Verdict, hollow: bool) -> None:
    if v.value is None:
        return
    if v.low is not None and v.high is not None:
        ax.plot([v.low, v.high], [y, y], color=COLOURS[v.code], lw=1.5, zorder=2, ls=":" if hollow else "-")
    ax.plot(v.value, y, marker="o", color=COLOURS[v.code], ms=6, zorder=4,
            markerfacecolor="white" if hollow else COLOURS[v.code])


def claims_figure(found: Sequence[Verdict]):
    """Two panels: differences and fractions (left), ratios on a log axis (right).  Per claim: this
    run's value for the paper's method (a dot coloured by verdict, with its 95% interval where there is one) and
    for the stand-in (an open circle, slightly below), the paper's number (a cross) and the rule's threshold
    (a grey bar)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    groups = [[v for v in found if v.claim.kind != "ratio"], [v for v in found if v.claim.kind == "ratio"]]
    heights = [max(1, len(g)) for g in groups]
    fig, axes = plt.subplots(2, 1, figsize=(8, 0.36 * sum(heights) + 1.6), gridspec_kw={"height_ratios": heights})
    for ax, group, log in zip(axes, groups, (False, True)):
        for y, v in enumerate(group):
            threshold = v.threshold if v.threshold is not None else v.claim.threshold
            for t in threshold if v.claim.side == "between" else (threshold,):
                ax.plot([t, t], [y - 0.35, y + 0.35], color="#bbbbbb", lw=2, zorder=1)
            if v.claim.paper_value is not None:
                ax.plot(v.claim.paper_value, y, marker="x", color="black", ms=6, zorder=3)
            _marks(ax, y - 0.12, v, hollow=False)
            if v.stand_in is not None:
                _marks(ax, y + 0.18, v.stand_in, hollow=True)
        ax.set_yticks(range(len(group)), [v.claim.id for v in group], fontsize=8)
        ax.set_ylim(len(group) - 0.5, -0.5)
        if log and group:
            ax.set_xscale("log")
        ax.set_xlabel("A / B (log scale)" if log else "value, or A - B")
    handles = [Line2D([], [], marker="o", ls="", color=c, label=name) for c, name in
               zip(COLOURS.values(), ("holds", "inconclusive", "contradicted", "untested"))]
    handles += [Line2D([], [], marker="o", ls="", color="black", markerfacecolor="white", label="stand-in"),
                Line2D([], [], marker="x", ls="", color="black", label="paper"),
                Line2D([], [], color="#bbbbbb", lw=2, label="threshold")]
    axes[0].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0 + 1.2 / heights[0]), ncol=4,
                   fontsize=8)
    fig.tight_layout()
    return fig
