"""QueryWeave: a LangGraph agent that turns a raw question into the right retrieval and a cited answer."""

__version__ = "0.1.0"
