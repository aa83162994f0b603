from __future__ import annotations

from lib.loss.clipped_weighted_huber_loss import clipped_weighted_huber_loss  # NOQA
