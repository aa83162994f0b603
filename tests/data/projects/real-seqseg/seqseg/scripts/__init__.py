# Script entry points for lightweight SeqSeg utilities.
