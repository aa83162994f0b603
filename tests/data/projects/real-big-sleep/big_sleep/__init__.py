from big_sleep.big_sleep import BigSleep, Imagine
