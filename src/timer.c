int bsTimerPlaceholder(void); int bsTimerPlaceholder(void) { return 0; }
