"""
Callbacks to run during the training process.  See the base class
`pfl.callback.base.TrainingProcessCallback`.
"""
