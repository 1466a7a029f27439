"""The retrieval tables of the AdMIRaL chapters: a hop's beams with the share of each title that was copied."""
from types import SimpleNamespace as NS

import pytest

from proofbook.render.retrieval import beams_frame

pytestmark = pytest.mark.unit

BEAMS = [NS(title="Idaho", score=-0.1234, pointers=(1,)), NS(title="Alaska", score=-0.5, pointers=()),
         NS(title="Juneau", score=-0.9, pointers=(0, 2))]


def test_beams_show_pointers_title_rounded_score_and_gold():
    frame = beams_frame(BEAMS, gold=["Alaska"], top=2)
    assert frame.to_dict("records") == [{"pointers": "E1", "title": "Idaho", "score": -0.123, "gold": False},
                                        {"pointers": "", "title": "Alaska", "score": -0.5, "gold": True}]


def test_copied_shares_become_a_column_and_a_model_that_cannot_copy_leaves_it_empty():
    assert beams_frame(BEAMS, [], top=2, copied=[0.98765, 0.1, 0.5])["copied"].tolist() == [0.988, 0.1]
    assert beams_frame(BEAMS, [], top=3, copied=[None, None, None])["copied"].isna().all()
    assert "copied" not in beams_frame(BEAMS, [])


def test_too_few_shares_for_the_beams_shown_is_an_error():
    with pytest.raises(ValueError, match="3 beams shown but 2 copied shares"):
        beams_frame(BEAMS, [], top=3, copied=[0.1, 0.2])
