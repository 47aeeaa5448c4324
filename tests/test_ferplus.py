"""FER+ label distributions (``evals.data.ferplus``): the training targets made from ten taggers' votes."""

from __future__ import annotations

import numpy as np

from evals.data.ferplus import FERPLUS_COLUMNS, soft_labels
from tools.core.schema import AFFECTNET8


def test_votes_become_distributions_without_single_votes():
    votes = np.array([[6, 3, 1, 0, 0, 0, 0, 0],   # a lone vote is noise beside a label with two or more
                      [1, 1, 1, 1, 1, 1, 1, 1],   # eight lone votes: nothing to drop them for
                      [0, 0, 0, 4, 0, 0, 0, 0],
                      [2, 0, 0, 0, 0, 0, 0, 0],   # unknown outvotes every label
                      [5, 5, 0, 0, 0, 0, 0, 0]])  # a tagger said it is not a face
    unknown = np.array([0, 0, 6, 8, 0])
    not_face = np.array([0, 0, 0, 0, 1])
    soft, keep = soft_labels(votes, unknown, not_face)
    assert keep.tolist() == [True, True, False, False, False]
    assert np.allclose(soft[0], [6 / 9, 3 / 9, 0, 0, 0, 0, 0, 0])
    assert np.allclose(soft[1], np.full(8, 1 / 8))
    assert not soft[~keep].any()


def test_the_vote_columns_are_affectnet8_labels():
    assert sorted(FERPLUS_COLUMNS) == sorted(AFFECTNET8)


def test_a_fer2013_face_is_kept_only_where_the_taggers_majority_gives_its_label(tmp_path):
    """``agreed_paths``: a face labelled neutral that seven of ten taggers call happy is left out; one whose label
    has the most votes is kept; a tie with another label, an unknown that outvotes it or an unmatched face is not."""
    import json

    import pytest

    from evals.data.ferplus import agreed_paths

    labels = ["neutral", "neutral", "fear", "fear", "anger", "happiness"]
    (tmp_path / "fer2013").mkdir()
    (tmp_path / "fer2013" / "manifest.jsonl").write_text("".join(
        json.dumps({"path": f"test/{i}.jpg", "label": lab, "split": "test"}) + "\n" for i, lab in enumerate(labels)))
    with pytest.raises(FileNotFoundError, match="evals.data.ferplus"):
        agreed_paths(tmp_path)
    votes = np.zeros((6, 8), int)
    col = {e: AFFECTNET8.index(e) for e in AFFECTNET8}
    votes[0, [col["neutral"], col["happiness"]]] = [2, 7]   # the taggers call it happy
    votes[1, col["neutral"]] = 10
    votes[2, [col["fear"], col["surprise"]]] = [5, 5]       # a tie is no majority
    votes[3, [col["fear"], col["surprise"]]] = [6, 4]
    votes[4, col["anger"]] = 4                              # unknown has 6
    votes[5, col["happiness"]] = 9                          # not matched to a FER+ row
    np.savez(tmp_path / "ferplus.npz", votes=votes, unknown=np.array([0, 0, 0, 0, 6, 0]), not_face=np.zeros(6, int),
             matched=np.array([True] * 5 + [False]), rms=np.zeros(6))
    assert agreed_paths(tmp_path) == {str(tmp_path / "fer2013" / "test" / f"{i}.jpg") for i in (1, 3)}


def test_a_bench_draw_is_named_by_its_build_arguments():
    """``studies.ferplus_benches.parse_draw``: the arguments ``evals.composed`` was built with, typed; an unknown key
    is an error that names the known ones."""
    import pytest

    from studies.ferplus_benches import parse_draw

    assert parse_draw("split=test,form=long,videos=1,seed=11,minutes=30,needles=12,faces=mixed,agreed") == {
        "split": "test", "form": "long", "videos": 1, "seed": 11, "minutes": 30.0, "needles": 12,
        "faces_from": "mixed", "agreed": True}
    with pytest.raises(ValueError, match="known: split"):
        parse_draw("split=test,colour=grey")
