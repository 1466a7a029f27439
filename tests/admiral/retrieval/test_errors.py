"""Where the loop loses a gold page (proofbook.admiral.retrieval.errors), on hand-made traces."""
import pytest

from proofbook.admiral.retrieval.autoregressive import Beam
from proofbook.admiral.retrieval.errors import STAGES, error_rows, most_common_text
from proofbook.admiral.retrieval.multihop import HopTrace, RetrievalTrace
from proofbook.admiral.retrieval.tasks import RetrievalClaim
from proofbook.core.corpus import Sentence

pytestmark = pytest.mark.unit


def _trace(claim, hop_input=None, beams=(), kept=()):
    lead = Sentence("Paris", 0, "Paris lies on the Seine, near Versailles.")
    trace = RetrievalTrace(claim, [("Paris", 3.0)], [], ["Paris", "Lyon"], ["Paris"], [(lead, 0.9)], [(lead, 0.9)])
    if hop_input is not None:
        trace.hops.append(HopTrace(2, hop_input, [Beam((0,), t, -1.0) for t in beams], list(kept), []))
    return trace


def test_each_missing_title_gets_its_stage_and_whether_the_hop_could_copy_it():
    claim = RetrievalClaim("c1", "Paris is on a river.", ("Paris", "Seine", "Versailles", "Lyon", "Nice"), (), 4,
                           "SUPPORTED")
    hop_input = [Sentence("Paris", 0, "Paris lies on the Seine, near Versailles.")]
    trace = _trace(claim.claim, hop_input, beams=["Seine", "Versailles"], kept=["Seine"])
    rows = {row["title"]: row for row in error_rows([trace], [claim], k=1)}
    assert "Paris" not in rows                                   # in the top 1
    assert {title: row["stage"] for title, row in rows.items()} == {
        "Seine": STAGES[3], "Versailles": STAGES[2], "Lyon": STAGES[1], "Nice": STAGES[0]}
    assert {title: row["written_in_hop_input"] for title, row in rows.items()} == {
        "Seine": True, "Versailles": True, "Lyon": False, "Nice": False}
    no_hop = error_rows([_trace(claim.claim)], [claim], k=1)
    assert no_hop and not any(row["written_in_hop_input"] for row in no_hop)
    assert most_common_text([]) == "none: no gold document is missing"
