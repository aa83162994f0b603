from opendataval.dataval.ame.ame import AME, BaggingEvaluator
