"""The `queryweave` command line."""
