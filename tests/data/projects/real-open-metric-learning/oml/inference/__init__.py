from oml.inference.abstract import inference, inference_cached, pairwise_inference
