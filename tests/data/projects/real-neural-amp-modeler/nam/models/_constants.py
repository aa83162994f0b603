# Model version is independent from package version as of package version 0.5.2 so that
# the schema of the package can iterate at a different pace from that of the model
# files.
MODEL_VERSION = "0.7.0"
