from ignite.contrib.engines.tbptt import create_supervised_tbptt_trainer, Tbptt_Events
