"""Sam2Mot implementation package; import :class:`boxmot.Sam2Mot` publicly."""
