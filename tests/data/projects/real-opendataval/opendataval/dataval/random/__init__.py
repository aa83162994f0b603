from opendataval.dataval.random.random import RandomEvaluator
