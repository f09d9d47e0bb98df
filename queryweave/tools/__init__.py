"""Tools: everything that touches data or models. Tools know nothing of the graph."""
