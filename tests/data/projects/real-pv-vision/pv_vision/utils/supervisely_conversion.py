# to-do: convert supervisely output file to pv-vision file
# if you use supervisely, this tool is useful
# if you directly train the model with pv-vision, no need to use this tool