"""State → text and inline keyboards. Every word comes from the locales."""
