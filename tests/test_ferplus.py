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
