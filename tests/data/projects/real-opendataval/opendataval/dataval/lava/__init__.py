from opendataval.dataval.lava.lava import LavaEvaluator
