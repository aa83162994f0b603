"""Model-level kernel prewarm shared by training, inference and `kohakumoss-tune`: the
planned token lengths of a data config (`lengths`) and the record / replay prewarm of a
backbone and of a trainable set (`prewarm`). See docs/internals/tuning.md#prewarm."""
