from recbole.sampler.sampler import Sampler, KGSampler, RepeatableSampler, SeqSampler
