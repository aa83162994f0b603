from __future__ import annotations

from chgnet.graph.converter import CrystalGraphConverter
from chgnet.graph.crystalgraph import CrystalGraph
