from __future__ import absolute_import

from torchreid.reid.metrics.rank import evaluate_rank
from torchreid.reid.metrics.accuracy import accuracy
from torchreid.reid.metrics.distance import compute_distance_matrix
