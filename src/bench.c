int bsBenchPlaceholder(void); int bsBenchPlaceholder(void) { return 0; }
