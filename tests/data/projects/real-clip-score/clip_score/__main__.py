import clip_score.clip_score

clip_score.clip_score.main()
