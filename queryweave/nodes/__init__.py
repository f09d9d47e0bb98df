"""Graph nodes: one module per node, each a small function (state, runtime) -> partial state."""
